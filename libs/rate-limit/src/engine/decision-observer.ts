import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';

/** Told of every verdict of a request (stats, metrics); must not throw or wait. */
export interface DecisionObserver {
  observe(verdict: RateLimitVerdict): void;
}
