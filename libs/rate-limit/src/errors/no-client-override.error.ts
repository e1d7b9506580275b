import { RateLimitError } from './rate-limit.error';

/**
 * The identity has no client override under the policy (never had one, or it expired or was
 * removed). The admin API answers 404. The identity is not kept in the message: a raw one may be
 * personal data (an e-mail, an API key) that logs of errors must not hold.
 * @publicApi
 */
export class NoClientOverrideError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'NoClientOverrideError';

  constructor(readonly policy: string) {
    super(`No client override for this identity under rate limit policy "${policy}"`);
  }
}
