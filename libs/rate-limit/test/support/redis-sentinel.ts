/**
 * A real Redis Sentinel setup for integration tests: a primary, one replica (`--replicaof`) and
 * three sentinels (`redis-server <conf> --sentinel`, quorum 2), all on free 127.0.0.1 ports.
 *
 *   let sentinel: TestSentinel;
 *   beforeAll(async () => { sentinel = await startTestSentinel(); });
 *   afterAll(async () => { await sentinel?.close(); });
 *
 * `killPrimary()` SIGKILLs the primary; `waitForPromotion()` asks a sentinel for the primary's
 * address until it changes (and the new primary says `role:master`). Every process is SIGKILLed
 * on `close()` and when the test process exits; the temporary directory is removed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeTempDir } from './processes/temp-dirs';
import type { WatchedProcess } from './processes/watched-process';
import type { HostPort } from './redis-cluster';
import { redisCommand, waitFor } from './redis-commands';
import { onFreePort, spawnRedisServer, throwawayServerArgs } from './spawn-redis-server';

export interface TestSentinel {
  readonly sentinels: HostPort[];
  readonly name: 'mymaster';
  readonly primaryPort: number;
  readonly replicaPort: number;
  /** SIGKILLs the primary and resolves once the process has exited. */
  killPrimary(): Promise<void>;
  /**
   * Polls a sentinel until the primary's address differs from `primaryPort` and the new
   * primary reports `role:master`. Resolves with it and the time waited.
   */
  waitForPromotion(timeoutMs?: number): Promise<HostPort & { waitedMs: number }>;
  /** What the sentinels currently report as the primary. */
  currentPrimary(): Promise<HostPort>;
  close(): Promise<void>;
}

export interface StartTestSentinelOptions {
  /** `sentinel down-after-milliseconds`. @default 1000 */
  downAfterMs?: number;
  /** `sentinel failover-timeout`. @default 5000 */
  failoverTimeoutMs?: number;
}

const NAME = 'mymaster';
const HOST = '127.0.0.1';
const SENTINEL_READY = /\+monitor master/;
const START_TIMEOUT_MS = 10_000;

const startServer = (argv: string[], label: string, ready?: RegExp) =>
  spawnRedisServer(argv, { label, ready, timeoutMs: START_TIMEOUT_MS });

export async function startTestSentinel(
  options: StartTestSentinelOptions = {},
): Promise<TestSentinel> {
  const downAfterMs = options.downAfterMs ?? 1_000;
  const failoverTimeoutMs = options.failoverTimeoutMs ?? 5_000;
  const dir = makeTempDir('rl-sentinel');
  const children: WatchedProcess[] = [];
  const close = async () => {
    await Promise.all(children.map((c) => c.kill()));
    removeTempDir(dir);
  };

  const dataArgs = (port: number) => [
    ...throwawayServerArgs(port, { host: HOST, dir }),
    '--dbfilename',
    `dump-${port}.rdb`,
  ];

  try {
    const primary = await onFreePort((port) => startServer(dataArgs(port), `primary ${port}`));
    children.push(primary.started);
    const replica = await onFreePort((port) =>
      startServer(
        [...dataArgs(port), '--replicaof', HOST, String(primary.port)],
        `replica ${port}`,
      ),
    );
    children.push(replica.started);
    await waitFor(
      'the replica to sync with the primary',
      async () =>
        /master_link_status:up/.test(
          String(await redisCommand(replica.port, 'INFO', ['replication'])),
        )
          ? true
          : undefined,
      10_000,
    );

    const sentinels: HostPort[] = [];
    for (let i = 0; i < 3; i++) {
      const sentinel = await onFreePort((port) => {
        const conf = join(dir, `sentinel-${port}.conf`);
        writeFileSync(
          conf,
          [
            `port ${port}`,
            `bind ${HOST}`,
            `dir ${dir}`,
            'sentinel resolve-hostnames no',
            `sentinel monitor ${NAME} ${HOST} ${primary.port} 2`,
            `sentinel down-after-milliseconds ${NAME} ${downAfterMs}`,
            `sentinel failover-timeout ${NAME} ${failoverTimeoutMs}`,
            `sentinel parallel-syncs ${NAME} 1`,
            '',
          ].join('\n'),
        );
        return startServer([conf, '--sentinel'], `sentinel ${port}`, SENTINEL_READY);
      });
      children.push(sentinel.started);
      sentinels.push({ host: HOST, port: sentinel.port });
    }
    // Sentinels find each other and the replica through the primary (hello messages every 2 s):
    // a failover needs the quorum to be reachable and the replica known.
    await waitFor(
      'the sentinels to see each other and the replica',
      async () => {
        for (const s of sentinels) {
          const quorum = String(await redisCommand(s.port, 'SENTINEL', ['CKQUORUM', NAME]));
          if (!/3 usable Sentinels/.test(quorum)) return undefined;
          const replicas = (await redisCommand(s.port, 'SENTINEL', [
            'REPLICAS',
            NAME,
          ])) as unknown[];
          if (replicas.length < 1) return undefined;
        }
        return true;
      },
      15_000,
      200,
    );

    const currentPrimary = async (): Promise<HostPort> => {
      let lastError: unknown;
      for (const s of sentinels) {
        try {
          const [host, port] = (await redisCommand(s.port, 'SENTINEL', [
            'GET-MASTER-ADDR-BY-NAME',
            NAME,
          ])) as [string, string];
          return { host, port: Number(port) };
        } catch (error) {
          lastError = error;
        }
      }
      throw new Error(`no sentinel answered: ${String(lastError)}`);
    };

    return {
      sentinels,
      name: NAME,
      primaryPort: primary.port,
      replicaPort: replica.port,
      killPrimary: () => primary.started.kill(),
      currentPrimary,
      waitForPromotion: async (timeoutMs = 20_000) => {
        const started = Date.now();
        const promoted = await waitFor(
          `the sentinels to promote a new primary for ${NAME}`,
          async () => {
            const current = await currentPrimary();
            if (current.port === primary.port) return undefined;
            const info = String(await redisCommand(current.port, 'INFO', ['replication']));
            return /role:master/.test(info) ? current : undefined;
          },
          timeoutMs,
          50,
        );
        return { ...promoted, waitedMs: Date.now() - started };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
