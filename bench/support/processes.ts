/**
 * Every child process the benchmark starts (redis-server, the HTTP apps) is tracked here and
 * killed when the benchmark ends, whether it finishes, throws, or is interrupted.
 */
import type { ChildProcess } from 'node:child_process';

const children = new Set<ChildProcess>();
let hooksInstalled = false;

function killAllNow(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAllNow();
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  }
}

export function track(child: ChildProcess): ChildProcess {
  installHooks();
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Sends SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export async function stopChild(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (hasExited(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Last resort, for the error path. */
export function killAll(): void {
  killAllNow();
}

/**
 * Runs a benchmark's entry point: exit code 1 on an error, every child process killed, and the
 * process exits even if a library left a handle open (nothing else should run).
 */
export function runBenchmark(main: () => Promise<void>): void {
  main()
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    })
    .finally(() => {
      killAll();
      process.exit();
    });
}
