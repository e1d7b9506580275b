import type { TierThresholds } from './policy-thresholds';
import type { RateLimitPolicy } from './rate-limit-policy.interface';

/** Tier names: short and safe in a Redis hash field (`tier.<name>.limit`) and a URL. */
export const TIER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Names that would reach an object's prototype if ever used as a property. */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

export const isTierName = (name: string): boolean => TIER_NAME.test(name) && !RESERVED.has(name);

/**
 * The thresholds one tier decides with: what its override sets, else what it declares, else
 * the policy's (`base`, itself with the policy's override applied). A tier that sets a limit
 * and no burst has its limit as burst, as a policy does.
 */
export function tierPolicy(
  base: RateLimitPolicy,
  tier: string,
  declared: TierThresholds,
  override: TierThresholds | undefined,
): RateLimitPolicy {
  const ownLimit = override?.limit ?? declared.limit;
  return {
    ...base,
    limit: ownLimit ?? base.limit,
    windowMs: override?.windowMs ?? declared.windowMs ?? base.windowMs,
    burst: override?.burst ?? declared.burst ?? ownLimit ?? base.burst,
    tier,
  };
}
