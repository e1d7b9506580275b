/**
 * The one place that starts a `redis-server` (REDIS_SERVER_BIN, else `redis-server` on the PATH)
 * and waits until it says it is ready. Used by redis-test-server.ts, redis-cluster.ts (and through
 * it redis-sentinel.ts) and bench/support/redis-server.ts, which differ only in the options below.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';

/** The server could not bind its port: callers pick another port (or retry the same one). */
export class PortInUseError extends Error {}

export interface SpawnRedisServerOptions {
  /** Resolves once stdout/stderr match this. @default /Ready to accept connections/ */
  ready?: RegExp;
  /** @default 10_000 */
  timeoutMs?: number;
  /** Names the server in error messages. @default 'redis-server' */
  label?: string;
  /**
   * An `sh -c` script that runs the server as `"$0" "$@"` and reads its stdin, which is then a
   * pipe: ending it stops the server (redis-cluster.ts's watchdog). Without it, stdin is ignored
   * and a failed start SIGKILLs the server directly.
   */
  watchdog?: string;
  /** Called right after spawning, to register the child for clean-up. */
  track?: (child: ChildProcess) => void;
  /**
   * Unref the child and its pipes once ready, so a test run is not held open by its server (the
   * pipes keep draining, so redis never blocks on a full pipe). @default true
   */
  unref?: boolean;
}

const READY_LINE = /Ready to accept connections/;

/**
 * Arguments for a throwaway server on `host`:`port` with persistence off, in the foreground (what
 * every test and benchmark server runs; cluster and sentinel nodes add their own). Config is
 * passed as `--name value` pairs; `--save ""` needs the empty string as its own argv.
 */
export function throwawayServerArgs(
  port: number,
  { host = '127.0.0.1', dir = tmpdir() }: { host?: string; dir?: string } = {},
): string[] {
  const argv = ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no'];
  return [...argv, '--daemonize', 'no', '--dir', dir];
}

/** Spawns `redis-server ...argv` and resolves with the child once its output matches `ready`. */
export function spawnRedisServer(
  argv: string[],
  options: SpawnRedisServerOptions = {},
): Promise<ChildProcess> {
  const { ready = READY_LINE, timeoutMs = 10_000, label = 'redis-server', watchdog } = options;
  const bin = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const child = watchdog
    ? spawn('sh', ['-c', watchdog, bin, ...argv], { stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Ending the watchdog's pipe after it has gone must not throw EPIPE.
  child.stdin?.on('error', () => undefined);
  options.track?.(child);
  const notFound = () =>
    new Error(`'${bin}' not found on PATH (apt-get install redis-server) or set REDIS_SERVER_BIN`);

  return new Promise<ChildProcess>((resolve, reject) => {
    let output = ''; // the last ~8 KB, for readiness and for error messages
    const tail = () => output.slice(-2000);
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        if (watchdog) child.stdin?.end();
        else child.kill('SIGKILL');
        reject(error);
        return;
      }
      if (options.unref ?? true) {
        child.unref();
        for (const s of [child.stdin, child.stdout, child.stderr])
          (s as unknown as { unref?: () => void })?.unref?.();
      }
      resolve(child);
    };
    const timer = setTimeout(
      () => finish(new Error(`${label} not ready within ${timeoutMs} ms:\n${tail()}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8000);
      if (ready.test(output)) finish();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    // Without the watchdog a missing binary is ENOENT; under `sh` it is exit code 127.
    child.once('error', (err: NodeJS.ErrnoException) =>
      finish(!watchdog && err.code === 'ENOENT' ? notFound() : err),
    );
    child.once('exit', (code, signal) =>
      finish(
        /Address already in use/i.test(output)
          ? new PortInUseError(`${label}: port in use`)
          : watchdog && code === 127
            ? notFound()
            : new Error(
                `${label} exited before it was ready (code ${code}, signal ${signal}):\n${tail()}`,
              ),
      ),
    );
  });
}
