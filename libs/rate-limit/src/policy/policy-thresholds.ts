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

/** The fields set in `<prefix>:policy:<name>`; `updatedAt` in ms since the epoch. */
export type PolicyOverride = Partial<PolicyThresholds> & { updatedAt?: number };
