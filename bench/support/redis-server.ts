/**
 * A redis-server the benchmark owns: spawned on a free 127.0.0.1 port with persistence off by the
 * test harness's spawnRedisServer (libs/rate-limit/test/support/spawn-redis-server.ts), stopped at the end.
 */
import { stopChild, track } from './processes';
import { findFreePort } from '../../libs/rate-limit/test/support/redis-test-server';
import {
  PortInUseError,
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
  for (let attempt = 1; ; attempt++) {
    const port = await findFreePort();
    try {
      // Unlike a test's server it stays referenced (as it always has); processes.ts stops it.
      const child = await spawnRedisServer(throwawayServerArgs(port), { track, unref: false });
      return { url: `redis://127.0.0.1:${port}`, port, stop: () => stopChild(child) };
    } catch (error) {
      // Another process took the port between findFreePort() and bind(): try another.
      if (attempt >= 5 || !(error instanceof PortInUseError)) throw error;
    }
  }
}
