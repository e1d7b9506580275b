import type { DecisionCounts } from '../decision/decision-counts';
import type { PolicyOverride, PolicyThresholds, TierThresholds } from '../policy/policy-thresholds';
import type { PolicyRoute } from '../registry/route-paths';

export type { PolicyOverride, PolicyRoute, PolicyThresholds, TierThresholds };

/** A change requested through the admin API (validated before it reaches the service). */
export type PolicyPatch = Partial<PolicyThresholds>;


export type PolicyStatsView = DecisionCounts;

/** A change of one tier requested through the admin API (validated before the service). */
export type TierPatch = TierThresholds;

/** One tier of a policy as the admin API shows it. */
export interface TierView {
  name: string;
  /** Effective: the tier's override, else what it declares, else the policy's. */
  limit: number;
  windowMs: number;
  burst: number;
  /** What the code declares for the tier. */
  defaults: TierThresholds;
  /** What operators set for the tier at runtime, or null. */
  override: TierThresholds | null;
  /** The tier's share of the policy's stats. */
  stats: PolicyStatsView;
}

/** One policy as the admin API shows it. */
export interface PolicyView extends PolicyThresholds {
  name: string;
  routes: PolicyRoute[];
  defaults: PolicyThresholds;
  /** The policy's own override; each tier's is shown on the tier. */
  override: Omit<PolicyOverride, 'tiers'> | null;
  stats: PolicyStatsView;
  /** In declaration order; empty when the policy declares none. */
  tiers: TierView[];
}

export interface KeyUsage {
  identity: string;
  used: number;
  remaining: number;
  resetMs: number;
  /** Milliseconds left of a `blockFor` penalty; 0 when not blocked. */
  blockedMs: number;
}

export interface KeyUsagePage {
  items: KeyUsage[];
  /** Pass back to get the next page; null when the listing is complete. */
  cursor: string | null;
}
