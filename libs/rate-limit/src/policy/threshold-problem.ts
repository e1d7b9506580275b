import { MAX_SLIDING_WINDOW_LIMIT } from './policy-limits';
import type { RateLimitAlgorithm } from './rate-limit-algorithm';

/**
 * What is wrong with a combination of thresholds that are each valid on their own (checked at
 * bootstrap, on PATCH, and on overrides read from Redis), or undefined.
 */
export function thresholdProblem(policy: {
  readonly algo: RateLimitAlgorithm;
  readonly limit: number;
}): string | undefined {
  if (policy.algo === 'sliding-window' && policy.limit > MAX_SLIDING_WINDOW_LIMIT) {
    return (
      `limit must be at most ${MAX_SLIDING_WINDOW_LIMIT} with algo 'sliding-window', which keeps ` +
      `one entry per request in the window (got ${policy.limit}); use 'sliding-window-counter' ` +
      'for larger limits'
    );
  }
  return undefined;
}
