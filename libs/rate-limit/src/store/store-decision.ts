import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { capacityOf } from '../policy/rate-limit-algorithm';
import type { StoreEntry, StoreSource } from './rate-limit-store.interface';
import { REASON_OF_CODE, type ReasonCode } from './reason-code';

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * One entry's decision as the store hands it out, what the engine reports unchanged: the
 * policy's capacity as `limit` (a quota override sets its own after), a reason only on a refusal
 * (set in place rather than spread: this runs per request).
 */
export function storeDecision(
  entry: StoreEntry,
  source: StoreSource,
  remaining: number,
  resetMs: number,
  retryAfterMs: number,
  reason: ReasonCode,
): Mutable<RateLimitDecision> {
  const { policy } = entry;
  const decision: Mutable<RateLimitDecision> = {
    policy: policy.name,
    allowed: reason === 0,
    shadow: policy.mode === 'shadow',
    limit: capacityOf(policy),
    remaining,
    resetMs,
    retryAfterMs,
    source,
  };
  if (reason !== 0) decision.reason = REASON_OF_CODE[reason];
  if (policy.tier !== undefined) decision.tier = policy.tier;
  return decision;
}
