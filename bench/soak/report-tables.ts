/** The soak report's time-series tables (one row per sample). */
import type { Sample } from './sampler';

const MB = 2 ** 20;
export const mb = (bytes: number) => (bytes / MB).toFixed(1);
export const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
export const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
const align = (columns: number) => row(Array<string>(columns).fill('---:'));
const names = (samples: readonly Sample[]) => samples[0].instances.map((_, i) => 'AB'[i] ?? i);

/** What the issue asks for: req/s, RSS and heap of each instance, used_memory, key counts. */
export function trafficTable(samples: readonly Sample[]): string[] {
  const header = [
    't s',
    'req/s',
    '200/s',
    '429/s',
    'err/s',
    'p50 ms',
    'p99 ms',
    ...names(samples).flatMap((n) => [`${n} RSS MB`, `${n} heap MB`]),
    'used_memory MB',
    'DBSIZE',
    'client keys',
  ];
  return [
    row(header),
    align(header.length),
    ...samples.map((s) =>
      row([
        s.t,
        n0(s.reqPerSec),
        n0(s.okPerSec),
        n0(s.limitedPerSec),
        n0(s.errorsPerSec),
        s.latencyP50Ms,
        s.latencyP99Ms,
        ...s.instances.flatMap((i) => [mb(i.rssBytes), mb(i.heapUsedBytes)]),
        mb(s.usedMemory),
        n0(s.dbsize),
        n0(s.clientKeys),
      ]),
    ),
  ];
}

/**
 * Where the CPU went (cores over the interval) and how healthy Redis looked: the slowest PING of
 * an independent probe, and the instances' cumulative fault counters (fallback decisions, Redis
 * command errors and timeouts, breaker openings; both instances); next to them, the
 * over-admissions found in the interval, to see whether they come with faults.
 */
export function healthTable(samples: readonly Sample[]): string[] {
  const cores = ['machine', ...names(samples), 'generator', 'redis', 'soak', 'others'];
  const header = [
    't s',
    ...cores.map((c) => `${c} cores`),
    'PING max ms',
    'PINGs > 100 ms',
    'fallback decisions',
    'Redis errors',
    'breaker openings',
    'over-admissions',
  ];
  const total = (s: Sample, kind: keyof Sample['instances'][number]['faults']) =>
    s.instances.reduce((sum, i) => sum + i.faults[kind], 0);
  return [
    row(header),
    align(header.length),
    ...samples.map((s) =>
      row([
        s.t,
        ...cores.map((c) => (s.cpu[c] ?? Number.NaN).toFixed(2)),
        s.pingMaxMs,
        s.pingsOver100Ms,
        n0(total(s, 'fallback')),
        n0(total(s, 'redisErrors')),
        n0(total(s, 'circuitOpenings')),
        s.overAdmissions,
      ]),
    ),
  ];
}
