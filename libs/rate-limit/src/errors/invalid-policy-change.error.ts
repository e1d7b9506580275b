import { RateLimitError } from './rate-limit.error';

/** A runtime change of thresholds that would make an invalid policy; nothing was written. */
export class InvalidPolicyChangeError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'InvalidPolicyChangeError';

  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '));
  }
}
