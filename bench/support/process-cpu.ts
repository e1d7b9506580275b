import { readFileSync } from 'node:fs';

/** Linux's clock tick (CLK_TCK, 100 on every kernel the bench runs on), in µs. */
const TICK_US = 10_000;

/**
 * CPU time (user + system) a process has used so far, in µs, from /proc/<pid>/stat. Per request
 * it is steadier than req/s on a shared host: time the process waits for a core is not in it.
 * NaN where /proc is not there.
 */
export function processCpuUs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "(<command>) ": state is field 3, utime field 14 and stime field 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return Number.NaN;
  }
}
