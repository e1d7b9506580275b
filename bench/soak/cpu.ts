/**
 * Where the CPU went between two samples, in cores (1.0 = one core busy all the time): the whole
 * machine, and each process of the soak. "Others" (machine minus ours) is whoever else shares the
 * machine; on a shared 2-core host it explains most of the swings in req/s.
 */
import { readFileSync } from 'node:fs';

// USER_HZ: the unit of /proc/<pid>/stat and /proc/stat times; 100 on every Linux we run on.
const TICKS_PER_SEC = 100;

/** CPU seconds a process has used so far (user + system); NaN once it has gone. */
export function processCpuSec(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SEC;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds the whole machine has been busy so far (every state but idle and iowait). */
export function machineBusySec(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const ticks = line.split(/\s+/).slice(1).map(Number);
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  return (total - ticks[3] - ticks[4]) / TICKS_PER_SEC;
}

/** Turns cumulative CPU seconds into cores used over the interval since the previous call. */
export class CpuMeter {
  private last = new Map<string, number>();
  private lastAt = performance.now();

  cores(readings: Record<string, number>): Record<string, number> {
    const now = performance.now();
    const seconds = (now - this.lastAt) / 1000;
    const cores: Record<string, number> = {};
    for (const [name, value] of Object.entries(readings)) {
      const before = this.last.get(name);
      cores[name] = before === undefined ? Number.NaN : (value - before) / seconds;
      this.last.set(name, value);
    }
    this.lastAt = now;
    return cores;
  }
}
