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
 * the test process exits, even by SIGKILL (each server runs under a watchdog that kills it when
 * this process's pipe closes); the temporary directory is removed.
 *
 * Also exports the process plumbing (`spawnRedisProcess`, `redisCommand`, `waitFor`) used by
 * test/support/redis-sentinel.ts.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { findFreePort } from './redis-test-server';
import { PortInUseError, spawnRedisServer, throwawayServerArgs } from './spawn-redis-server';

export interface HostPort {
  host: string;
  port: number;
}

export interface ClusterNodeInfo extends HostPort {
  id: string;
  role: 'master' | 'replica';
  /** For a replica, the id of its master. */
  masterId: string | null;
  /** Slot ranges `[from, to]` (masters only). */
  slots: [number, number][];
  failing: boolean;
}

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
const READY_LINE = /Ready to accept connections/;

// ---------------------------------------------------------------------------------------------
// Process plumbing, shared with redis-sentinel.ts.

const liveChildren = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    // Closing the pipes (which exiting does anyway) makes each watchdog SIGKILL its server.
    for (const c of liveChildren) c.stdin?.destroy();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
}

/** A temporary directory removed by `removeTempDir` or, at the latest, when the process exits. */
export function makeTempDir(label: string): string {
  installExitHook();
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  tempDirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

// Re-exported for redis-sentinel.ts: the same class spawnRedisServer rejects with.
export { PortInUseError };

export function processExited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Every server runs under a tiny `sh` watchdog that holds the read end of a pipe from this
 * process: when the pipe closes (`killProcess`, or this process dying in any way, even by
 * SIGKILL, so no exit hook runs) it SIGKILLs the server. The wrapper exits once the server has.
 */
const WATCHDOG =
  'exec 3<&0; "$0" "$@" & pid=$!; (read _ <&3; kill -9 $pid 2>/dev/null) & wait $pid';

/** SIGKILLs a server (through its watchdog) and resolves once it has exited. */
export async function killProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const done = processExited(child);
  child.stdin?.end();
  const fallback = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await done;
  clearTimeout(fallback);
}

/** Registers a watchdog child so the exit hook can end its pipe. */
function trackProcess(child: ChildProcess): void {
  installExitHook();
  liveChildren.add(child);
  child.once('exit', () => {
    liveChildren.delete(child);
    // Lets the watchdog's reader go (the server is gone already).
    child.stdin?.destroy();
  });
}

/**
 * Spawns `redis-server argv...` (under the watchdog) and resolves once its output matches
 * `ready`. The server is SIGKILLed when the test process exits, however it exits.
 */
export function spawnRedisProcess(
  argv: string[],
  ready: RegExp = READY_LINE,
  label = 'redis-server',
): Promise<ChildProcess> {
  return spawnRedisServer(argv, {
    ready,
    label,
    timeoutMs: START_TIMEOUT_MS,
    watchdog: WATCHDOG,
    track: trackProcess,
  });
}

/** One command on a short-lived connection (no retries): for polling and inspection. */
export async function redisCommand(
  port: number,
  command: string,
  args: (string | number)[] = [],
  options: { password?: string; timeoutMs?: number } = {},
): Promise<unknown> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    password: options.password,
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: options.timeoutMs ?? 1_000,
    commandTimeout: options.timeoutMs ?? 1_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(command, ...args);
  } finally {
    client.disconnect();
  }
}

/** Polls `probe` every `intervalMs` until it returns a value other than undefined. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}` +
          (lastError ? ` (last error: ${(lastError as Error).message})` : ''),
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export function runRedisCli(args: string[], timeoutMs = 30_000): Promise<string> {
  const bin = process.env.REDIS_CLI_BIN ?? 'redis-cli';
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new Error(`redis-cli ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`),
          );
        } else {
          resolve(stdout + stderr);
        }
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Cluster.

export function parseClusterNodes(text: string): ClusterNodeInfo[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [id, address, flags, master, , , , , ...slotSpecs] = line.split(' ');
      const [hostPort] = address.split('@');
      const colon = hostPort.lastIndexOf(':');
      const flagSet = new Set(flags.split(','));
      const slots: [number, number][] = [];
      for (const spec of slotSpecs) {
        if (spec.startsWith('[')) continue; // migrating / importing markers
        const [from, to] = spec.split('-').map(Number);
        slots.push([from, to ?? from]);
      }
      return {
        id,
        host: hostPort.slice(0, colon) || '127.0.0.1',
        port: Number(hostPort.slice(colon + 1)),
        role: flagSet.has('master') ? 'master' : 'replica',
        masterId: master === '-' ? null : master,
        slots,
        failing: flagSet.has('fail') || flagSet.has('fail?'),
      } satisfies ClusterNodeInfo;
    });
}

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
  const procs = new Map<number, ChildProcess>();
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
        procs.set(port, await spawnRedisProcess(argv, READY_LINE, `cluster node ${port}`));
        argvOf.set(port, argv);
        return port;
      } catch (error) {
        if (!(error instanceof PortInUseError) || attempt >= 5) throw error;
      }
    }
  };

  const close = async () => {
    await Promise.all([...procs.values()].map((c) => killProcess(c)));
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
        .filter(([, c]) => c.exitCode === null && c.signalCode === null)
        .map(([p]) => p);

    const topology = async (): Promise<ClusterNodeInfo[]> => {
      let lastError: unknown;
      for (const port of livePorts()) {
        try {
          return parseClusterNodes(String(await redisCommand(port, 'CLUSTER', ['NODES'])));
        } catch (error) {
          lastError = error;
        }
      }
      throw new Error(`no live cluster node answered CLUSTER NODES: ${String(lastError)}`);
    };

    const allOk = async (): Promise<true | undefined> => {
      for (const port of livePorts()) {
        const info = String(await redisCommand(port, 'CLUSTER', ['INFO']));
        if (!/cluster_state:ok/.test(info)) return undefined;
      }
      return true;
    };
    const waitForOk = async (timeoutMs = 15_000) => {
      await waitFor('cluster_state:ok on every node', allOk, timeoutMs);
    };

    await waitForOk();
    // Every node sees every other, and every replica's link to its master is up (so it can fail over).
    await waitFor(
      'the full topology on every node and replication links up',
      async () => {
        for (const port of ports) {
          const view = parseClusterNodes(String(await redisCommand(port, 'CLUSTER', ['NODES'])));
          if (view.length !== total || view.some((n) => n.failing)) return undefined;
          if (view.filter((n) => n.role === 'master').length !== masters) return undefined;
          const me = view.find((n) => n.port === port);
          if (me?.role === 'replica') {
            const info = String(await redisCommand(port, 'INFO', ['replication']));
            if (!/master_link_status:up/.test(info)) return undefined;
          }
        }
        return true;
      },
      15_000,
    );

    return {
      nodes,
      topology,
      masters: async () =>
        (await topology()).filter((n) => n.role === 'master' && !n.failing && n.slots.length > 0),
      kill: async (port) => killProcess(procs.get(port)),
      restart: async (port) => {
        const argv = argvOf.get(port);
        if (!argv) throw new Error(`no cluster node on port ${port}`);
        await killProcess(procs.get(port));
        const deadline = Date.now() + START_TIMEOUT_MS;
        for (;;) {
          try {
            procs.set(port, await spawnRedisProcess(argv, READY_LINE, `cluster node ${port}`));
            return;
          } catch (error) {
            if (!(error instanceof PortInUseError) || Date.now() > deadline) throw error;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      },
      waitForFailover: async (deadPort, timeoutMs = 20_000) => {
        const started = Date.now();
        const before = await topology();
        const dead = before.find((n) => n.port === deadPort);
        if (!dead) throw new Error(`no cluster node on port ${deadPort}`);
        const promoted = await waitFor(
          `a replica of ${host}:${deadPort} to be promoted`,
          async () => {
            const view = await topology();
            const candidate = view.find(
              (n) =>
                n.port !== deadPort &&
                n.role === 'master' &&
                !n.failing &&
                n.slots.length > 0 &&
                before.find((b) => b.id === n.id)?.masterId === dead.id,
            );
            if (!candidate) return undefined;
            return (await allOk()) ? candidate : undefined;
          },
          timeoutMs,
        );
        return { promoted, waitedMs: Date.now() - started };
      },
      waitForOk,
      cli: (args, timeoutMs) => runRedisCli(['--cluster', ...args], timeoutMs),
      livePorts,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
