/** The soak's pass/fail criteria, computed from the samples and the end-of-run figures. */
import { median } from '../support/stats';
import type { CheckSummary } from './over-admission';
import type { Sample } from './sampler';

export interface Growth {
  readonly what: string;
  /** Median of the samples in the minute before the reference mark (end of warm-up). */
  readonly reference: number;
  /** Median of the samples in the last minute. */
  readonly last: number;
  readonly growthPct: number;
  /** The plain variant, for comparison: the last sample against the one at the mark. */
  readonly endpointGrowthPct: number;
}

export interface Criterion {
  readonly name: string;
  readonly figure: string;
  readonly pass: boolean;
}

export const MAX_GROWTH_PCT = 5;

/**
 * Medians over a minute rather than two single samples: RSS and used_memory move by a few %
 * with every GC cycle and allocator decision, and one unlucky sample would decide the verdict.
 * The windows shrink for a short (smoke) run so that each still holds a few samples.
 */
export function growth(
  what: string,
  samples: readonly Sample[],
  value: (s: Sample) => number,
  markSec: number,
  endSec: number,
): Growth {
  const windowSec = Math.min(60, Math.max(10, (endSec - markSec) / 3));
  const within = (from: number, to: number) =>
    samples.filter((s) => s.t > from && s.t <= to).map(value);
  const reference = median(within(markSec - windowSec, markSec));
  const last = median(within(endSec - windowSec, endSec));
  const atMark = samples.reduce((best, s) =>
    Math.abs(s.t - markSec) < Math.abs(best.t - markSec) ? s : best,
  );
  const pct = (to: number, from: number) => ((to - from) / from) * 100;
  return {
    what,
    reference,
    last,
    growthPct: pct(last, reference),
    endpointGrowthPct: pct(value(samples[samples.length - 1]), value(atMark)),
  };
}

export function criteria(
  growths: readonly Growth[],
  check: CheckSummary,
  clientKeysAfter: number,
  waitedSec: number,
): Criterion[] {
  const over = Object.values(check.byAlgo).reduce((sum, a) => sum + a.overAdmissions, 0);
  return [
    ...growths.map((g) => ({
      name: `${g.what} growth, end of run vs end of warm-up, medians (< ${MAX_GROWTH_PCT} %)`,
      figure: `${g.growthPct.toFixed(2)} % (endpoint ${g.endpointGrowthPct.toFixed(2)} %)`,
      pass: g.growthPct < MAX_GROWTH_PCT,
    })),
    { name: 'over-admissions, all algorithms (= 0)', figure: String(over), pass: over === 0 },
    {
      name: `client keys ${waitedSec} s after the traffic stopped (= 0)`,
      figure: String(clientKeysAfter),
      pass: clientKeysAfter === 0,
    },
  ];
}
