import { MAX_LIMIT, MAX_SLIDING_WINDOW_LIMIT } from '../policy/policy-limits';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';

/**
 * The thresholds a request is decided on while its tier's multiplier is `multiplier`:
 * effective = configured x multiplier, for the limit and the burst alike (so a bucket's rate
 * and capacity both follow). The configured policy is never changed: this is a copy, kept in
 * the policy's valid range (at least 1; a sliding window keeps one entry per request, so its
 * boost stops at its own maximum).
 */
export function scaledPolicy(policy: RateLimitPolicy, multiplier: number): RateLimitPolicy {
  const ceiling = policy.algo === 'sliding-window' ? MAX_SLIDING_WINDOW_LIMIT : MAX_LIMIT;
  const scale = (value: number): number =>
    Math.min(Math.max(value, ceiling), Math.max(1, Math.round(value * multiplier)));
  return { ...policy, limit: scale(policy.limit), burst: scale(policy.burst) };
}
