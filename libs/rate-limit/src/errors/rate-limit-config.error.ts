import { RateLimitError } from './rate-limit.error';

/**
 * Thrown at bootstrap for invalid module or decorator options; the message names where the
 * option was declared and which field is wrong.
 * @publicApi
 */
export class RateLimitConfigError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'RateLimitConfigError';

  constructor(
    readonly where: string,
    readonly field: string,
    problem: string,
  ) {
    super(`Invalid rate limit options on ${where}: "${field}" ${problem}`);
  }
}
