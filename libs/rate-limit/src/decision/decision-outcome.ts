import type { RateLimitDecision, RateLimitVerdict } from './rate-limit-decision.interface';

export type DecisionOutcome = 'allowed' | 'rejected' | 'shadowRejected';

/**
 * How one policy's decision counts: rejected by its own limit (enforced or shadow), or allowed
 * when the request was admitted. A policy that would have admitted a request another policy
 * rejected was not charged, so it counts as neither.
 */
export function outcomeOf(
  decision: RateLimitDecision,
  verdict: RateLimitVerdict,
): DecisionOutcome | undefined {
  if (!decision.allowed) return decision.shadow ? 'shadowRejected' : 'rejected';
  return verdict.allowed ? 'allowed' : undefined;
}
