import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import {
  RateLimitExceededException,
  type RateLimitExceededBody,
} from './rate-limit-exceeded.exception';
import { toSeconds } from './rate-limit-headers';

/**
 * The 429 the guard throws for a rejection. A rejection is an expected outcome, not a fault, so
 * it gets no stack trace: capturing one per 429 of a flood would cost more than deciding it.
 * Each rejection gets its own exception (and body): exception filters may add request data to
 * the body, which must never reach another client.
 */
export function rejectionException(decision: RateLimitDecision): RateLimitExceededException {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new RateLimitExceededException(
      decision.policy,
      toSeconds(decision.retryAfterMs),
      rejectionMessage(decision),
    );
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * The body Nest's exception filter renders for rejectionException(decision), in the same key
 * order (so the same bytes): what the shedder sends without an exception.
 */
export function rejectionBody(decision: RateLimitDecision): RateLimitExceededBody {
  return {
    statusCode: 429,
    message: rejectionMessage(decision),
    policy: decision.policy,
    retryAfter: toSeconds(decision.retryAfterMs),
  };
}

export function rejectionMessage(decision: RateLimitDecision): string {
  if (decision.reason === 'denied') return decision.message ?? 'Forbidden';
  if (decision.reason === 'cost-exceeds-capacity') {
    return `Request cost exceeds the capacity (${decision.limit}) of this limit; it can never be admitted`;
  }
  if (decision.reason === 'adaptive') {
    return 'Too Many Requests: the service is overloaded and adaptive protection is shedding load';
  }
  return decision.reason === 'blocked'
    ? 'Too Many Requests: temporarily blocked'
    : 'Too Many Requests';
}
