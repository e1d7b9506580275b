import type {
  DecisionSource,
  RateLimitDecision,
  RateLimitReason,
} from '../decision/rate-limit-decision.interface';
import { capacityOf } from '../policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { StoreOutcome } from '../store/rate-limit-store.interface';

const REASONS: readonly (RateLimitReason | undefined)[] = [
  undefined,
  'limit',
  'blocked',
  'cost-exceeds-capacity',
];

export function toDecision(
  policy: RateLimitPolicy,
  outcome: StoreOutcome,
  source: DecisionSource,
): RateLimitDecision {
  const reason = REASONS[outcome.reason];
  return {
    policy: policy.name,
    allowed: outcome.allowed,
    shadow: policy.mode === 'shadow',
    limit: capacityOf(policy),
    remaining: outcome.remaining,
    resetMs: outcome.resetMs,
    retryAfterMs: outcome.retryAfterMs,
    ...(reason ? { reason } : {}),
    source,
  };
}
