import type { RateLimitAlgorithm } from '../policy/rate-limit-algorithm';
import type { RateLimitMode } from '../policy/rate-limit-options.interface';

/** Thresholds an operator may change at runtime. */
export interface PolicyThresholds {
  algo: RateLimitAlgorithm;
  limit: number;
  windowMs: number;
  burst: number;
  mode: RateLimitMode;
  enabled: boolean;
}

/** The fields set in `<prefix>:policy:<name>`; `updatedAt` in ms since the epoch. */
export type PolicyOverride = Partial<PolicyThresholds> & { updatedAt?: number };

/** A change requested through the admin API (validated before it reaches the service). */
export type PolicyPatch = Partial<PolicyThresholds>;

export interface PolicyRoute {
  method: string;
  path: string;
}

export interface PolicyStatsView {
  allowed: number;
  rejected: number;
  shadowRejected: number;
}

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
