import { RateLimitError } from './rate-limit.error';

/**
 * One decision names a policy twice for one identity: both would be checked against the same
 * state and together exceed the limit.
 * @publicApi
 */
export class DuplicatePolicyError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'DuplicatePolicyError';

  constructor(readonly policy: string) {
    super(
      `Rate limit policy "${policy}" appears twice for one identity in one decision; pass it once with the summed cost`,
    );
  }
}
