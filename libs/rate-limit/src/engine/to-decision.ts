import type { DecisionSource, RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { capacityOf } from '../policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { StoreOutcome } from '../store/rate-limit-store.interface';
import { REASON_OF_CODE } from '../store/reason-code';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function toDecision(
  policy: RateLimitPolicy,
  outcome: StoreOutcome,
  source: DecisionSource,
): RateLimitDecision {
  const decision: Mutable<RateLimitDecision> = {
    policy: policy.name,
    allowed: outcome.allowed,
    shadow: policy.mode === 'shadow',
    limit: outcome.limit ?? capacityOf(policy),
    remaining: outcome.remaining,
    resetMs: outcome.resetMs,
    retryAfterMs: outcome.retryAfterMs,
    source,
  };
  // Only a refusal has a reason; set in place rather than spread (this runs per request).
  const reason = REASON_OF_CODE[outcome.reason];
  if (reason) decision.reason = reason;
  if (outcome.message !== undefined) decision.message = outcome.message;
  if (outcome.clientOverride !== undefined) decision.clientOverride = outcome.clientOverride;
  if (policy.tier !== undefined) decision.tier = policy.tier;
  return decision;
}
