import { RateLimitError } from './rate-limit.error';

/** A cost that is not a whole number of units in range (a call, or a route's cost function). @publicApi */
export class InvalidCostError extends RateLimitError {
  override readonly name = 'InvalidCostError';
}
