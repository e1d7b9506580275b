import { RateLimitError } from './rate-limit.error';

/**
 * A key the library writes holds a value of another type (written by hand): the write is
 * refused as a whole and nothing changed. The admin API answers 409 naming the key.
 * @publicApi
 */
export class StoredKeyConflictError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'StoredKeyConflictError';

  constructor(
    readonly key: string,
    expected: string,
  ) {
    super(
      `${key} holds a value that is not ${expected} (written by hand?): nothing was changed; ` +
        'delete the key (redis-cli DEL) to set an override',
    );
  }
}
