import { RateLimitError } from './rate-limit.error';

/**
 * A write Redis did not answer in time: Redis runs a command it received, so it may still
 * apply. The admin API answers 504 rather than "nothing changed".
 */
export class UncertainWriteError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'UncertainWriteError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(`${message}: the change may or may not have been applied; read it back to see`, options);
  }
}
