/**
 * A test Cluster's state as its live nodes report it (`CLUSTER NODES`, `CLUSTER INFO`), and
 * waiting until it is whole, healthy or failed over.
 */
import { redisCommand, waitFor } from './redis-commands';

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

/** Reads and waits on the state of the cluster whose live nodes `livePorts()` lists. */
export function clusterState(livePorts: () => number[]) {
  const nodesOf = async (port: number) =>
    parseClusterNodes(String(await redisCommand(port, 'CLUSTER', ['NODES'])));

  const topology = async (): Promise<ClusterNodeInfo[]> => {
    let lastError: unknown;
    for (const port of livePorts()) {
      try {
        return await nodesOf(port);
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

  return {
    topology,
    async waitForOk(timeoutMs = 15_000): Promise<void> {
      await waitFor('cluster_state:ok on every node', allOk, timeoutMs);
    },

    /** Every node sees every other, and every replica's link to its master is up. */
    async waitForFullTopology(ports: number[], total: number, masters: number): Promise<void> {
      await waitFor(
        'the full topology on every node and replication links up',
        async () => {
          for (const port of ports) {
            const view = await nodesOf(port);
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
    },

    /** Until a replica of the dead master serves its slots and every live node is ok. */
    async waitForFailover(deadPort: number, timeoutMs = 20_000) {
      const started = Date.now();
      const before = await topology();
      const dead = before.find((n) => n.port === deadPort);
      if (!dead) throw new Error(`no cluster node on port ${deadPort}`);
      const promoted = await waitFor(
        `a replica of the master on port ${deadPort} to be promoted`,
        async () => {
          const candidate = (await topology()).find(
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
  };
}
