import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';

/** One policy to apply to one identity. @publicApi */
export interface PolicyRequest {
  readonly policy: RateLimitPolicy;
  readonly identity: string;
  readonly cost: number;
}

/** Test-only: decide at this time instead of Redis (or process) time. */
export interface DecideOptions {
  readonly nowMs?: number;
}
