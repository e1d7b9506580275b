/** Paired ratios per repetition, and how the report writes numbers. */
import type { HttpRun } from './http/http-bench';
import type { ContenderName } from './library/contenders';
import type { KeyMode, LibraryRun } from './library/library-bench';
import { type Spread, spread } from './support/stats';

export const ONE = 'ours-fixed-window';
/** The plain policy with tiers; with 10,000 other clients' overrides; with one for this client. */
export const TIERS = 'ours-tiers';
export const OVERRIDES_10K = 'ours-overrides-10k';
export const OVERRIDDEN_CLIENT = 'ours-overridden-client';

/** Per-repetition ratio a/b of two HTTP scenarios (only repetitions where both ran). */
export function httpRatio(runs: readonly HttpRun[], a: string, b: string): Spread {
  const reps = [...new Set(runs.map((r) => r.repetition))];
  const values = reps.flatMap((rep) => {
    const x = runs.find((r) => r.repetition === rep && r.scenario === a);
    const y = runs.find((r) => r.repetition === rep && r.scenario === b);
    return x && y ? [x.rps / y.rps] : [];
  });
  return spread(values);
}

/** Per-repetition ratio a/b of the app's CPU time per request of two HTTP scenarios. */
export function httpCpuRatio(runs: readonly HttpRun[], a: string, b: string): Spread {
  const reps = [...new Set(runs.map((r) => r.repetition))];
  const values = reps.flatMap((rep) => {
    const x = runs.find((r) => r.repetition === rep && r.scenario === a);
    const y = runs.find((r) => r.repetition === rep && r.scenario === b);
    return x && y ? [x.appUsecPerRequest / y.appUsecPerRequest] : [];
  });
  return spread(values);
}

/**
 * Per-repetition ratio a/b of the CPU a request costs, the app's process and Redis together
 * (µs per request): what a stacked policy adds, steadier than req/s on a shared host.
 */
export function httpCostRatio(runs: readonly HttpRun[], a: string, b: string): Spread {
  const reps = [...new Set(runs.map((r) => r.repetition))];
  const cost = (r: HttpRun) => r.appUsecPerRequest + r.redisUsecPerRequest;
  const values = reps.flatMap((rep) => {
    const x = runs.find((r) => r.repetition === rep && r.scenario === a);
    const y = runs.find((r) => r.repetition === rep && r.scenario === b);
    return x && y ? [cost(x) / cost(y)] : [];
  });
  return spread(values);
}

export function libRatio(
  runs: readonly LibraryRun[],
  keys: KeyMode,
  inflight: number,
  a: ContenderName,
  b: ContenderName,
  measure: (run: LibraryRun) => number = (run) => run.opsPerSec,
): Spread {
  const cell = runs.filter((r) => r.keys === keys && r.inflight === inflight);
  const reps = [...new Set(cell.map((r) => r.repetition))];
  return spread(
    reps.flatMap((rep) => {
      const x = cell.find((r) => r.repetition === rep && r.contender === a);
      const y = cell.find((r) => r.repetition === rep && r.contender === b);
      return x && y ? [measure(x) / measure(y)] : [];
    }),
  );
}

export const int = (n: number) =>
  Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a';
export const x2 = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : 'n/a');
export const ratio = (s: Spread) => `**${x2(s.median)}** (${x2(s.min)}–${x2(s.max)})`;
export const usec = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
export const counts = (s: Spread) => `${int(s.median)} (${int(s.min)}–${int(s.max)})`;
