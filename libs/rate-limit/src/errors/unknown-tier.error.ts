import { RateLimitError } from './rate-limit.error';

/** A tier the policy does not declare (tiers are declared in code; operators change them). */
export class UnknownTierError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'UnknownTierError';

  constructor(
    readonly policy: string,
    readonly tier: string,
  ) {
    super(`Rate limit policy "${policy}" declares no tier "${tier}"`);
  }
}
