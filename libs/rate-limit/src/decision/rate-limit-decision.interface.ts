import type { ClientOverrideAction } from '../policy/client-override';

/**
 * Why a policy did not admit a request. 'adaptive': adaptive protection shed it, or it was over
 * thresholds adaptive protection had lowered (configured x a multiplier below 1).
 */
export type RateLimitReason = 'limit' | 'blocked' | 'cost-exceeds-capacity' | 'denied' | 'adaptive';

/** Which store decided: Redis, the in-memory store (by choice or as the outage fallback), or nobody. */
export type DecisionSource = 'redis' | 'memory' | 'fail-open' | 'fail-closed';

/**
 * One policy's verdict for one request. "Denied" is a value, never an exception.
 * @publicApi
 */
export interface RateLimitDecision {
  readonly policy: string;
  /** This policy's own verdict; in shadow mode a `false` does not stop the request. */
  readonly allowed: boolean;
  readonly shadow: boolean;
  /** Capacity: `burst` for the bucket algorithms and GCRA, `limit` for the window ones. */
  readonly limit: number;
  readonly remaining: number;
  /** Until the window resets or the bucket is full (empty, for a leaky bucket) again. */
  readonly resetMs: number;
  /** 0 when allowed. */
  readonly retryAfterMs: number;
  readonly reason?: RateLimitReason;
  /** The message of a client override's `deny` (reason 'denied'), when it set one. */
  readonly message?: string;
  /** The client override that applied to this client under this policy, if any. */
  readonly clientOverride?: ClientOverrideAction;
  /** The tier whose thresholds decided, when the request was in one of the policy's tiers. */
  readonly tier?: string;
  readonly source: DecisionSource;
}

/**
 * The verdict on a whole request (every policy that applies to it).
 * @publicApi
 */
export interface RateLimitVerdict {
  readonly allowed: boolean;
  readonly decisions: readonly RateLimitDecision[];
  readonly source: DecisionSource;
  /** Set when Redis could not decide and `onRedisError` chose the outcome. */
  readonly storeError?: Error;
}
