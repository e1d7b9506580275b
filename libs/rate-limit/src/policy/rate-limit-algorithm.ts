/** The six algorithms; each name is also the `.lua` file that decides it. */
export const RATE_LIMIT_ALGORITHMS = [
  'fixed-window',
  'sliding-window',
  'sliding-window-counter',
  'token-bucket',
  'leaky-bucket',
  'gcra',
] as const;

/** @publicApi */
export type RateLimitAlgorithm = (typeof RATE_LIMIT_ALGORITHMS)[number];

interface Thresholds {
  readonly algo: RateLimitAlgorithm;
  readonly limit: number;
  readonly windowMs: number;
  readonly burst: number;
}

/** What the code outside an algorithm's own files needs to know of it. */
interface AlgorithmTraits {
  /** Reports `burst` as its capacity (buckets and GCRA), else `limit` (window algorithms). */
  readonly bucket: boolean;
  /** The longest its state of one client needs to live under these thresholds (ms). */
  readonly stateLifetimeMs: (policy: Thresholds) => number;
}

const windows = (n: number) => (policy: Thresholds) => n * policy.windowMs;
/** The time to refill (or drain) a whole burst. */
const refill = (policy: Thresholds) =>
  Math.ceil((policy.windowMs * Math.max(policy.burst, policy.limit)) / policy.limit);

const TRAITS: Readonly<Record<RateLimitAlgorithm, AlgorithmTraits>> = {
  'fixed-window': { bucket: false, stateLifetimeMs: windows(1) },
  'sliding-window': { bucket: false, stateLifetimeMs: windows(1) },
  // The previous window still weighs during the current one.
  'sliding-window-counter': { bucket: false, stateLifetimeMs: windows(2) },
  'token-bucket': { bucket: true, stateLifetimeMs: refill },
  'leaky-bucket': { bucket: true, stateLifetimeMs: refill },
  gcra: { bucket: true, stateLifetimeMs: refill },
};

/** Bucket algorithms and GCRA report `burst` as their capacity; window algorithms `limit`. */
export function capacityOf(policy: Omit<Thresholds, 'windowMs'>): number {
  return TRAITS[policy.algo].bucket ? policy.burst : policy.limit;
}

/**
 * How long units charged together stay counted, at the least (ms): a window for the window
 * algorithms (a fixed window's count starts again at its end, which shows as a remainder that
 * grew); one emission interval (window / limit, in which less than one unit refills) for buckets
 * and GCRA.
 */
export function unitsHeldMs(policy: Thresholds): number {
  return TRAITS[policy.algo].bucket ? policy.windowMs / policy.limit : policy.windowMs;
}

/** The longest any state of the policy needs to live under its current thresholds (ms). */
export function stateLifetimeMs(policy: Thresholds): number {
  return TRAITS[policy.algo].stateLifetimeMs(policy);
}

export function isRateLimitAlgorithm(value: unknown): value is RateLimitAlgorithm {
  return (RATE_LIMIT_ALGORITHMS as readonly unknown[]).includes(value);
}
