import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { checkCount, checkDuration } from './normalize-policy';
import type { TierThresholds } from './policy-thresholds';
import type { RateLimitOptions } from './rate-limit-options.interface';
import type { RateLimitPolicy } from './rate-limit-policy.interface';
import { thresholdProblem } from './threshold-problem';
import { isTierName, tierPolicy } from './tier-policy';
import { checkSkipAndTier } from './tier-source';

const TIER_FIELDS = ['limit', 'window', 'burst'];

/**
 * Validates a policy's `tiers`, `tier` and `skip` options (bootstrap, like every other option);
 * answers the tiers by name, windows in ms.
 */
export function normalizeTiers(
  options: RateLimitOptions,
  policy: RateLimitPolicy,
  where: string,
): Map<string, TierThresholds> {
  checkSkipAndTier(where, options);
  const tiers = new Map<string, TierThresholds>();
  if (options.tiers === undefined) {
    if (options.tier !== undefined) {
      throw new RateLimitConfigError(where, 'tier', 'is set, but the policy declares no tiers');
    }
    return tiers;
  }
  if (typeof options.tiers !== 'object' || options.tiers === null || Array.isArray(options.tiers)) {
    throw new RateLimitConfigError(
      where,
      'tiers',
      'must be an object of tier name -> { limit, window, burst }',
    );
  }
  for (const [name, tier] of Object.entries(options.tiers)) {
    const field = `tiers.${name}`;
    if (!isTierName(name)) {
      throw new RateLimitConfigError(
        where,
        field,
        `a tier name must be 1-64 characters of A-Z a-z 0-9 _ - (got ${JSON.stringify(name)})`,
      );
    }
    if (typeof tier !== 'object' || tier === null) {
      throw new RateLimitConfigError(where, field, 'must be an object with limit, window or burst');
    }
    const unknown = Object.keys(tier).find((key) => !TIER_FIELDS.includes(key));
    if (unknown !== undefined) {
      throw new RateLimitConfigError(
        where,
        `${field}.${unknown}`,
        'is not a tier option (limit, window, burst)',
      );
    }
    const thresholds: TierThresholds = {};
    if (tier.limit !== undefined)
      thresholds.limit = checkCount(where, `${field}.limit`, tier.limit);
    if (tier.window !== undefined) {
      thresholds.windowMs = checkDuration(where, `${field}.window`, tier.window);
    }
    if (tier.burst !== undefined)
      thresholds.burst = checkCount(where, `${field}.burst`, tier.burst);
    if (Object.keys(thresholds).length === 0) {
      throw new RateLimitConfigError(where, field, 'must set at least one of limit, window, burst');
    }
    const problem = thresholdProblem(tierPolicy(policy, name, thresholds, undefined));
    if (problem)
      throw new RateLimitConfigError(where, `${field}.limit`, problem.replace(/^limit /, ''));
    tiers.set(name, thresholds);
  }
  if (options.tier !== undefined && tiers.size === 0) {
    throw new RateLimitConfigError(where, 'tier', 'is set, but the policy declares no tiers');
  }
  return tiers;
}
