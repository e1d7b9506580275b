/** Why the store could not decide: the outcome of the command is unknown or it never ran. */
export type StoreFailure = 'unavailable' | 'timeout' | 'error';

/**
 * Redis could not decide. Never thrown to a request: the service turns it into the outcome
 * `onRedisError` asks for. Kept as a typed value so callers can tell it from a rejection.
 * @publicApi
 */
export class RateLimitStoreError extends Error {
  constructor(
    readonly failure: StoreFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RateLimitStoreError';
  }
}
