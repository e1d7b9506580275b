/**
 * The six demo policies the soak drives, one per algorithm (GET /api/<algo>, keyed by client IP),
 * with the thresholds the soak sets through the admin API before the traffic starts.
 */
import {
  RATE_LIMIT_ALGORITHMS,
  type RateLimitAlgorithm,
} from '../../libs/rate-limit/src/policy/rate-limit-algorithm';

export type Algo = RateLimitAlgorithm;

export interface SoakPolicy {
  readonly algo: Algo;
  /** The demo's policy name, `demo.<algo>`. */
  readonly name: string;
  readonly path: string;
  readonly limit: number;
  readonly windowMs: number;
  /** Capacity of the bucket algorithms and GCRA; the window algorithms ignore it. */
  readonly burst: number;
}

export const ALGOS: readonly Algo[] = RATE_LIMIT_ALGORITHMS;

const WINDOW_MS = 10_000;
const LIMIT = 10;
// Smaller than the limit on purpose: a bucket that used `limit` as its capacity would admit
// up to 5 more from idle, which the over-admission check would see.
const BURST = 5;

/**
 * Short windows, so that windows roll over about 60 times in 10 minutes and every key of a
 * client gone quiet expires within seconds of the end.
 */
export function soakPolicies(): SoakPolicy[] {
  return ALGOS.map((algo) => ({
    algo,
    name: `demo.${algo}`,
    path: `/api/${algo}`,
    limit: LIMIT,
    windowMs: WINDOW_MS,
    burst: BURST,
  }));
}

/**
 * The longest a client key can outlive its last request: a window (sliding log, fixed window,
 * the time a bucket takes to refill or drain), two windows for sliding-window-counter, whose
 * state also weighs the previous window.
 */
export function longestKeyTtlMs(policies: readonly SoakPolicy[]): number {
  return Math.max(...policies.map((p) => 2 * p.windowMs));
}
