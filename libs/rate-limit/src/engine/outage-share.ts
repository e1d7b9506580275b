import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { InstanceStanding } from './instance-standing';

/**
 * One instance's part of `value`: `1 / instances` of it, the remainder going to the first
 * `value % instances` instances, so that the parts add up to `value` exactly; or a fixed
 * `fraction` of it, rounded down. May be 0.
 */
export function splitOf(
  value: number,
  standing: InstanceStanding,
  fraction: number | undefined,
): number {
  if (fraction !== undefined) return Math.floor(value * fraction);
  const { instances, rank } = standing;
  return Math.floor(value / instances) + (rank < value % instances ? 1 : 0);
}

/**
 * One instance's part of what Redis last said was left of a client's limit: rounded down on
 * every instance, since each instance's last reply may be a little behind the others' (they
 * admitted more since); may be 0.
 */
export function leftShareOf(
  remaining: number,
  standing: InstanceStanding,
  fraction: number | undefined,
): number {
  return Math.floor(remaining * (fraction ?? 1 / standing.instances));
}

/** As splitOf, but at least 1: a threshold is never shared down to nothing. */
export function shareOf(
  value: number,
  standing: InstanceStanding,
  fraction: number | undefined,
): number {
  return Math.max(1, splitOf(value, standing, fraction));
}

/** The policy with this instance's share of its thresholds (the rate and the capacity). */
export function sharedPolicy(
  policy: RateLimitPolicy,
  standing: InstanceStanding,
  fraction: number | undefined,
): RateLimitPolicy {
  if (fraction === 1 || (fraction === undefined && standing.instances === 1)) return policy;
  return {
    ...policy,
    limit: shareOf(policy.limit, standing, fraction),
    burst: shareOf(policy.burst, standing, fraction),
  };
}
