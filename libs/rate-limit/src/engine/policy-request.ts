import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';

/** One policy to apply to one identity. @publicApi */
export interface PolicyRequest {
  readonly policy: RateLimitPolicy;
  readonly identity: string;
  readonly cost: number;
  /**
   * The tier the route's resolver named, whether or not the policy declares thresholds for it
   * (adaptive protection sheds by it). Unset without a resolver, or when it named none.
   */
  readonly tier?: string;
}

/** Test-only: decide at this time instead of Redis (or process) time. */
export interface DecideOptions {
  readonly nowMs?: number;
}
