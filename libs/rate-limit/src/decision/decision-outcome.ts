import type { RateLimitDecision, RateLimitVerdict } from './rate-limit-decision.interface';

/** What a policy's decision counts as in the stats. */
export const DECISION_OUTCOMES = ['allowed', 'rejected', 'shadowRejected'] as const;

export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

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
