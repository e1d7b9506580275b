import { RateLimitError } from './rate-limit.error';

/**
 * A listing cursor the store did not give out (each store has its own form). The admin API
 * answers 400.
 */
export class InvalidCursorError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'InvalidCursorError';

  constructor() {
    super('cursor must be a value returned by a previous page');
  }
}
