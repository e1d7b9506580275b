import { RateLimitError } from './rate-limit.error';

/** No policy of that name is registered. The admin API answers 404. @publicApi */
export class UnknownPolicyError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'UnknownPolicyError';

  constructor(readonly policy: string) {
    super(`Unknown rate limit policy "${policy}"`);
  }
}
