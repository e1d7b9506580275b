import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Child processes that cannot outlive the test process: each program (redis-server, a demo)
 * runs under a tiny `sh` watchdog that holds the read end of a pipe from this process; when the
 * pipe closes (kill(), or this process ending in any way, even SIGKILLed by jest, when no exit
 * hook runs) it SIGKILLs the program. The watchdog first writes the program's pid, so signals
 * (SIGSTOP, SIGCONT, SIGTERM) go to the program itself; it exits once the program has.
 */
const WATCHDOG =
  'exec 3<&0; "$0" "$@" <&- & pid=$!; echo "watchdog-pid $pid" >&2; ' +
  '(read _ <&3; kill -9 $pid 2>/dev/null) & wait $pid';

const PID_LINE = /watchdog-pid (\d+)/;
const OUTPUT_KEPT = 64_000;

export interface WatchedProcess {
  /** The program's own pid (the child is its watchdog). */
  readonly pid: number;
  readonly child: ChildProcess;
  /** What the program wrote last (stdout and stderr), for readiness and error reports. */
  output(): string;
  /** Sends a signal to the program; SIGKILL, SIGTERM, SIGINT, SIGQUIT resolve once it exited. */
  signal(signal: NodeJS.Signals): Promise<void>;
  /** SIGKILLs the program through its watchdog; resolves once it has exited. */
  kill(): Promise<void>;
  readonly exited: Promise<void>;
}

export interface SpawnWatchedOptions {
  /** Resolves once the output matches. */
  ready: RegExp;
  timeoutMs: number;
  /** Names the program in error messages. */
  label: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

const live = new Set<ChildProcess>();
let hooked = false;
const TERMINATING = new Set<NodeJS.Signals>(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGQUIT']);

/** Rejects with the program's output when it exits or times out before it is ready. */
export class NotReadyError extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(`${message}:\n${output.slice(-2_000)}`);
  }
}

export function spawnWatched(
  program: string,
  args: readonly string[],
  options: SpawnWatchedOptions,
): Promise<WatchedProcess> {
  if (!hooked) {
    hooked = true;
    // A normal exit closes the pipes too; this is for an exit with handles still open.
    process.on('exit', () => live.forEach((child) => child.stdin?.destroy()));
  }
  const child = spawn('sh', ['-c', WATCHDOG, program, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Ending the watchdog's pipe after it has gone must not throw EPIPE.
  child.stdin?.on('error', () => undefined);
  live.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child);
      child.stdin?.destroy();
      resolve();
    }),
  );
  let output = '';
  // Drained for good: a full pipe would block the program.
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      if (error) {
        child.stdin?.end();
        reject(error);
      } else resolve(watched(child, Number(PID_LINE.exec(output)![1]), () => output, exited));
    };
    const check = () => {
      if (PID_LINE.test(output) && options.ready.test(output)) done();
    };
    const timer = setTimeout(
      () =>
        done(
          new NotReadyError(`${options.label} not ready within ${options.timeoutMs} ms`, output),
        ),
      options.timeoutMs,
    );
    // After `keep` (registered first), so the chunk is in the output when checked.
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', (code) =>
      done(
        new NotReadyError(
          code === 127
            ? `'${program}' not found on PATH`
            : `${options.label} exited before it was ready (code ${code})`,
          output,
        ),
      ),
    );
  });
}

function watched(
  child: ChildProcess,
  pid: number,
  output: () => string,
  exited: Promise<void>,
): WatchedProcess {
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const kill = async () => {
    if (gone()) return;
    child.stdin?.end();
    await exited;
  };
  return {
    pid,
    child,
    output,
    exited,
    kill,
    async signal(signal) {
      if (gone()) return;
      send(pid, signal);
      if (!TERMINATING.has(signal)) return;
      // A stopped program acts on SIGTERM/SIGINT/SIGQUIT only once continued.
      if (signal !== 'SIGKILL') send(pid, 'SIGCONT');
      const stuck = setTimeout(() => void kill(), 5_000);
      await exited;
      clearTimeout(stuck);
    },
  };
}

/** A program that has just exited (its watchdog not yet) is no error. */
function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
