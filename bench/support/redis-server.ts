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
  /** The server's own pid (also when it runs under a tool such as valgrind). */
  readonly pid: number;
  stop(): Promise<void>;
}

export { findFreePort };

/** `under`: a command the server runs under (valgrind: it takes far longer to be ready). */
export async function startRedis(under?: readonly string[]): Promise<BenchRedis> {
  const { port, started } = await onFreePort((port) =>
    spawnRedisServer(throwawayServerArgs(port), {
      under: under && [...under],
      timeoutMs: under ? 60_000 : undefined,
    }),
  );
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: started.pid,
    stop: () => started.signal('SIGTERM'),
  };
}
