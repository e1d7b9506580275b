import { RateLimitError } from './rate-limit.error';

/** Why the store could not decide: the outcome of the command is unknown or it never ran. */
export const STORE_FAILURES = ['unavailable', 'timeout', 'error'] as const;
export type StoreFailure = (typeof STORE_FAILURES)[number];

/**
 * Redis could not decide. Never thrown to a request: the service turns it into the outcome
 * `onRedisError` asks for. Kept as a typed value so callers can tell it from a rejection.
 * @publicApi
 */
export class RateLimitStoreError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'RateLimitStoreError';

  /**
   * A timeout's command may still be answered: its reply, should it come (Redis did run it).
   * Undefined for other failures.
   */
  readonly late?: Promise<unknown>;

  constructor(
    readonly failure: StoreFailure,
    message: string,
    options?: { cause?: unknown; late?: Promise<unknown> },
  ) {
    super(message, options);
    this.late = options?.late;
  }
}
