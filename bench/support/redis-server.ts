/**
 * A redis-server the benchmark owns: spawned on a free 127.0.0.1 port with persistence off by the
 * test harness's spawnRedisServer (libs/rate-limit/test/support/spawn-redis-server.ts), under a
 * watchdog that kills it when the benchmark ends in any way; stopped at the end.
 */
import { findFreePort } from '../../libs/rate-limit/test/support/processes/free-port';
import {
  onFreePort,
  spawnRedisServer,
  throwawayServerArgs,
} from '../../libs/rate-limit/test/support/spawn-redis-server';

export interface BenchRedis {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export { findFreePort };

export async function startRedis(): Promise<BenchRedis> {
  const { port, started } = await onFreePort((port) => spawnRedisServer(throwawayServerArgs(port)));
  return { url: `redis://127.0.0.1:${port}`, port, stop: () => started.signal('SIGTERM') };
}
