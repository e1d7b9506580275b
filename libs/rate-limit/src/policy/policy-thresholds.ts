import type { RateLimitAlgorithm } from './rate-limit-algorithm';
import type { RateLimitMode } from './rate-limit-mode';

/** The thresholds of a policy an operator may change at runtime. */
export interface PolicyThresholds {
  algo: RateLimitAlgorithm;
  limit: number;
  windowMs: number;
  burst: number;
  mode: RateLimitMode;
  enabled: boolean;
}

/**
 * What a tier sets (declared, or overridden at runtime); what it leaves out is the policy's, and
 * its `burst` follows its own `limit` when it sets one.
 */
export const TIER_THRESHOLDS = ['limit', 'windowMs', 'burst'] as const;

export interface TierThresholds {
  limit?: number;
  windowMs?: number;
  burst?: number;
}

/**
 * The fields set in `<prefix>:policy:<name>`; `updatedAt` in ms since the epoch; `tiers` from the
 * fields `tier.<name>.limit|windowMs|burst`.
 */
export type PolicyOverride = Partial<PolicyThresholds> & {
  updatedAt?: number;
  tiers?: Record<string, TierThresholds>;
};
