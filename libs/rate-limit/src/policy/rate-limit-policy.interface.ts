import type { RateLimitAlgorithm } from './rate-limit-algorithm';
import type { RateLimitMode } from './rate-limit-options.interface';

/** The thresholds of a policy after validation, in milliseconds; what the stores decide on. */
export interface RateLimitPolicy {
  readonly name: string;
  readonly algo: RateLimitAlgorithm;
  readonly limit: number;
  readonly windowMs: number;
  /** Capacity for the bucket algorithms and GCRA; equals `limit` unless set. */
  readonly burst: number;
  /** 0 when the policy has no penalty. */
  readonly blockForMs: number;
  readonly mode: RateLimitMode;
  /** A disabled policy is skipped by the guard (set at runtime by operators). */
  readonly enabled: boolean;
  /** Set on the thresholds of one of the policy's tiers (same name, same state keys). */
  readonly tier?: string;
  /** Whether adaptive protection may scale it; undefined: the module's `adaptive.policies`. */
  readonly adaptive?: boolean;
}
