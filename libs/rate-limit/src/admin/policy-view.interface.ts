import type { DecisionCounts } from '../decision/decision-counts';
import type { PolicyOverride, PolicyThresholds } from '../policy/policy-thresholds';

export type { PolicyOverride, PolicyThresholds };

/** A change requested through the admin API (validated before it reaches the service). */
export type PolicyPatch = Partial<PolicyThresholds>;

export interface PolicyRoute {
  method: string;
  path: string;
}

export type PolicyStatsView = DecisionCounts;

/** One policy as the admin API shows it. */
export interface PolicyView extends PolicyThresholds {
  name: string;
  routes: PolicyRoute[];
  defaults: PolicyThresholds;
  override: PolicyOverride | null;
  stats: PolicyStatsView;
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
