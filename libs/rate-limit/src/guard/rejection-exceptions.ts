import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { RateLimitExceededException } from './rate-limit-exceeded.exception';
import { toSeconds } from './rate-limit-headers';

const MAX_KEPT = 1_000;

/**
 * The 429 exceptions the guard throws. A rejection is an expected outcome, not a fault: it gets
 * no stack trace, and one exception per policy, reason, capacity and retry second is built and thrown
 * again (nothing mutates it), so a flood of rejections allocates almost nothing.
 */
export class RejectionExceptions {
  private readonly kept = new Map<string, RateLimitExceededException>();

  exceptionFor(decision: RateLimitDecision): RateLimitExceededException {
    const seconds = toSeconds(decision.retryAfterMs);
    const id = `${seconds}\u0000${decision.reason ?? ''}\u0000${decision.limit}\u0000${decision.policy}`;
    let exception = this.kept.get(id);
    if (!exception) {
      exception = withoutStackTrace(
        () => new RateLimitExceededException(decision.policy, seconds, rejectionMessage(decision)),
      );
      if (this.kept.size >= MAX_KEPT) this.kept.clear();
      this.kept.set(id, exception);
    }
    return exception;
  }
}

function withoutStackTrace<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function rejectionMessage(decision: RateLimitDecision): string {
  if (decision.reason === 'cost-exceeds-capacity') {
    return `Request cost exceeds the capacity (${decision.limit}) of this limit; it can never be admitted`;
  }
  return decision.reason === 'blocked'
    ? 'Too Many Requests: temporarily blocked'
    : 'Too Many Requests';
}
