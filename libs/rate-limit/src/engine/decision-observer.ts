import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { PolicyRequest } from './policy-request';

/**
 * Told of every verdict of a request (stats, metrics, traffic); must not throw or wait.
 * `requests` are what was decided, in the order of the verdict's decisions.
 */
export interface DecisionObserver {
  observe(verdict: RateLimitVerdict, requests?: readonly PolicyRequest[]): void;
}
