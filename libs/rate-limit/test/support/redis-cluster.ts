/**
 * A real Redis Cluster for integration tests: `redis-server` processes with `cluster-enabled`,
 * on free 127.0.0.1 ports, joined with `redis-cli --cluster create`.
 *
 *   let cluster: TestCluster;
 *   beforeAll(async () => { cluster = await startTestCluster({ masters: 3, replicasPerMaster: 1 }); });
 *   afterAll(async () => { await cluster?.close(); });
 *
 * `kill(port)` SIGKILLs one node, `waitForFailover(port)` waits until a replica of that master
 * has been promoted and the cluster is `ok` again, `restart(port)` brings a node back with its
 * nodes.conf (so it rejoins as the same node). Every process is SIGKILLed on `close()` and when
 * the test process exits, even by SIGKILL (processes/watched-process.ts); the temporary
 * directory is removed.
 */
import { join } from 'node:path';
import { findFreePort } from './processes/free-port';
import { makeTempDir, removeTempDir } from './processes/temp-dirs';
import type { WatchedProcess } from './processes/watched-process';
import { clusterState, type ClusterNodeInfo, type HostPort } from './redis-cluster-nodes';
import { runRedisCli } from './redis-commands';

export type { ClusterNodeInfo, HostPort };
import { PortInUseError, spawnRedisServer, throwawayServerArgs } from './spawn-redis-server';

export interface TestCluster {
  /** Every node started (masters and replicas), in start order. */
  readonly nodes: HostPort[];
  /** The masters that serve slots right now, as one live node sees it. */
  masters(): Promise<ClusterNodeInfo[]>;
  /** The full topology (`CLUSTER NODES`) as one live node sees it. */
  topology(): Promise<ClusterNodeInfo[]>;
  /** SIGKILLs the node on `port` and resolves once the process has exited. */
  kill(port: number): Promise<void>;
  /** Starts the node on `port` again (same nodes.conf, so the same node id). */
  restart(port: number): Promise<void>;
  /**
   * Waits until a replica of the (dead) master on `deadPort` is a master and every live node
   * reports `cluster_state:ok`. Resolves with the promoted node and how long the wait took.
   */
  waitForFailover(
    deadPort: number,
    timeoutMs?: number,
  ): Promise<{ promoted: ClusterNodeInfo; waitedMs: number }>;
  /** Waits until every live node reports `cluster_state:ok`. */
  waitForOk(timeoutMs?: number): Promise<void>;
  /** Runs `redis-cli --cluster <args...>` against the cluster; resolves with its output. */
  cli(args: string[], timeoutMs?: number): Promise<string>;
  /** Live ports (processes running). */
  livePorts(): number[];
  close(): Promise<void>;
}

export interface StartTestClusterOptions {
  masters?: number;
  replicasPerMaster?: number;
  /** Extra `redis-server` arguments for every node. */
  args?: string[];
  /** `cluster-node-timeout` in ms. @default 1000 */
  nodeTimeoutMs?: number;
}

const START_TIMEOUT_MS = 10_000;

const startNodeProcess = (argv: string[], label: string) =>
  spawnRedisServer(argv, { label, timeoutMs: START_TIMEOUT_MS });

async function freePortPair(): Promise<[number, number]> {
  for (;;) {
    const port = await findFreePort();
    const bus = await findFreePort();
    if (port !== bus) return [port, bus];
  }
}

export async function startTestCluster(
  options: StartTestClusterOptions = {},
): Promise<TestCluster> {
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1_000;
  if (masters < 3) throw new Error('redis-cli --cluster create needs at least 3 masters');
  const total = masters * (1 + replicasPerMaster);
  const dir = makeTempDir('rl-cluster');
  const host = '127.0.0.1';
  const procs = new Map<number, WatchedProcess>();
  const argvOf = new Map<number, string[]>();

  const startNode = async (): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      // The cluster bus port is set explicitly: port + 10000 may be out of range or taken.
      const [port, bus] = await freePortPair();
      const argv = [
        ...throwawayServerArgs(port, { host, dir }),
        '--cluster-port',
        String(bus),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        String(nodeTimeoutMs),
        // A replica always tries to fail over, however long it was cut off.
        '--cluster-replica-validity-factor',
        '0',
        '--logfile',
        '',
        ...(options.args ?? []),
      ];
      try {
        procs.set(port, await startNodeProcess(argv, `cluster node ${port}`));
        argvOf.set(port, argv);
        return port;
      } catch (error) {
        if (!(error instanceof PortInUseError) || attempt >= 5) throw error;
      }
    }
  };

  const close = async () => {
    await Promise.all([...procs.values()].map((p) => p.kill()));
    procs.clear();
    removeTempDir(dir);
  };

  try {
    // allSettled: on a failure, every node that did start is in `procs` when close() runs.
    const started = await Promise.allSettled(Array.from({ length: total }, () => startNode()));
    const failure = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    const ports = started.map((r) => (r as PromiseFulfilledResult<number>).value);
    const nodes = ports.map((port) => ({ host, port }));
    await runRedisCli([
      '--cluster',
      'create',
      ...ports.map((p) => `${host}:${p}`),
      '--cluster-replicas',
      String(replicasPerMaster),
      '--cluster-yes',
    ]);

    const livePorts = () =>
      [...procs.entries()]
        .filter(([, p]) => p.child.exitCode === null && p.child.signalCode === null)
        .map(([port]) => port);

    const state = clusterState(livePorts);
    await state.waitForOk();
    await state.waitForFullTopology(ports, total, masters);

    return {
      nodes,
      topology: state.topology,
      masters: async () =>
        (await state.topology()).filter(
          (n) => n.role === 'master' && !n.failing && n.slots.length > 0,
        ),
      kill: async (port) => procs.get(port)?.kill(),
      restart: async (port) => {
        const argv = argvOf.get(port);
        if (!argv) throw new Error(`no cluster node on port ${port}`);
        await procs.get(port)?.kill();
        const deadline = Date.now() + START_TIMEOUT_MS;
        for (;;) {
          try {
            procs.set(port, await startNodeProcess(argv, `cluster node ${port}`));
            return;
          } catch (error) {
            if (!(error instanceof PortInUseError) || Date.now() > deadline) throw error;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      },
      waitForFailover: state.waitForFailover,
      waitForOk: state.waitForOk,
      cli: (args, timeoutMs) => runRedisCli(['--cluster', ...args], timeoutMs),
      livePorts,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
