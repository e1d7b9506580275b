/**
 * The one place that starts a `redis-server` (REDIS_SERVER_BIN, else `redis-server` on the PATH),
 * under a watchdog (processes/watched-process.ts), and waits until it says it is ready: single
 * test servers, Cluster and Sentinel nodes, the benchmark's servers.
 */
import { tmpdir } from 'node:os';
import { NotReadyError, spawnWatched, type WatchedProcess } from './processes/watched-process';
import { findFreePort } from './processes/free-port';

/** The server could not bind its port: callers pick another port (or retry the same one). */
export class PortInUseError extends Error {}

export const READY_LINE = /Ready to accept connections/;

export interface SpawnRedisServerOptions {
  /** Resolves once the output matches this. @default READY_LINE */
  ready?: RegExp;
  /** @default 10_000 */
  timeoutMs?: number;
  /** Names the server in error messages. @default 'redis-server' */
  label?: string;
  /** A command the server runs under, e.g. `['valgrind', '--tool=callgrind']`. */
  under?: string[];
}

/**
 * Arguments for a throwaway server on `host`:`port` with persistence off, in the foreground.
 * Config is passed as `--name value` pairs; `--save ""` needs the empty string as its own argv.
 */
export function throwawayServerArgs(
  port: number,
  { host = '127.0.0.1', dir = tmpdir() }: { host?: string; dir?: string } = {},
): string[] {
  const argv = ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no'];
  return [...argv, '--daemonize', 'no', '--dir', dir];
}

/** Spawns `redis-server ...argv` and resolves once its output matches `ready`. */
export async function spawnRedisServer(
  argv: string[],
  options: SpawnRedisServerOptions = {},
): Promise<WatchedProcess> {
  const bin = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const [program, ...args] = [...(options.under ?? []), bin, ...argv];
  try {
    return await spawnWatched(program, args, {
      ready: options.ready ?? READY_LINE,
      timeoutMs: options.timeoutMs ?? 10_000,
      label: options.label ?? 'redis-server',
    });
  } catch (error) {
    if (error instanceof NotReadyError && /Address already in use/i.test(error.output)) {
      throw new PortInUseError(`${options.label ?? 'redis-server'}: port in use`, { cause: error });
    }
    if (error instanceof NotReadyError && /not found on PATH/.test(error.message)) {
      throw new Error(
        `'${bin}' not found on PATH (apt-get install redis-server) or set REDIS_SERVER_BIN`,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * A server on a free port: `start(port)` is retried on another port when the one picked was
 * taken between findFreePort() and the server's bind().
 */
export async function onFreePort<T>(
  start: (port: number) => Promise<T>,
): Promise<{ port: number; started: T }> {
  for (let attempt = 1; ; attempt++) {
    const port = await findFreePort();
    try {
      return { port, started: await start(port) };
    } catch (error) {
      if (!(error instanceof PortInUseError) || attempt >= 5) throw error;
    }
  }
}
