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

const BUCKET_ALGORITHMS: ReadonlySet<RateLimitAlgorithm> = new Set([
  'token-bucket',
  'leaky-bucket',
  'gcra',
]);

/** Bucket algorithms and GCRA report `burst` as their capacity; window algorithms `limit`. */
export function capacityOf(policy: {
  readonly algo: RateLimitAlgorithm;
  readonly limit: number;
  readonly burst: number;
}): number {
  return BUCKET_ALGORITHMS.has(policy.algo) ? policy.burst : policy.limit;
}

export function isRateLimitAlgorithm(value: unknown): value is RateLimitAlgorithm {
  return (RATE_LIMIT_ALGORITHMS as readonly unknown[]).includes(value);
}
