import { RateLimitStoreError, type StoreFailure } from '../../errors/rate-limit-store.error';
import type { CircuitBreaker } from './circuit-breaker';
import type { RedisClient, RoundTrip } from './redis-script';
import { RoundTripDeadlines } from './round-trip-deadlines';

/** Receives command latencies, failures and circuit changes (the metrics). */
export interface StoreObserver {
  observeCommand(seconds: number, failure?: StoreFailure): void;
  setCircuitOpen(open: boolean): void;
}

/**
 * The request path's calls to Redis: each round trip within the command timeout, none sent while
 * the client is not connected or the breaker is open (they fail at once, so no request waits on
 * a dead Redis), and every outcome told to the breaker and the metrics.
 */
export class GuardedCalls {
  /** Every round trip within the command timeout, on one timer (see RoundTripDeadlines). */
  private readonly deadlines: RoundTripDeadlines;

  constructor(
    private readonly client: RedisClient,
    private readonly breaker: CircuitBreaker,
    timeoutMs: number,
    private readonly observer?: StoreObserver,
  ) {
    this.deadlines = new RoundTripDeadlines(timeoutMs);
  }

  /**
   * Runs `command`, whose every round trip to Redis must answer within the command timeout.
   * `map` turns its result into the answer, and `failed` sees its error, in the same promise step
   * (each step after it would cost every call a promise of its own).
   */
  send<T, R = T>(
    command: (roundTrip: RoundTrip) => Promise<T>,
    map?: (result: T) => R,
    failed?: (error: RateLimitStoreError) => void,
  ): Promise<R> {
    if (this.client.status !== 'ready') {
      return this.failFast(`Redis is not connected (${this.client.status})`);
    }
    if (this.breaker.isOpen) return this.failFast('Redis circuit is open after repeated failures');
    const started = performance.now();
    return command(this.deadlines.bound).then(
      (result) => {
        this.breaker.succeeded();
        this.observer?.observeCommand((performance.now() - started) / 1000);
        return map ? map(result) : (result as unknown as R);
      },
      (caught: unknown) => {
        this.breaker.failed();
        const error =
          caught instanceof RateLimitStoreError
            ? caught
            : new RateLimitStoreError('error', `Redis failed: ${(caught as Error).message}`, {
                cause: caught,
              });
        this.observer?.observeCommand((performance.now() - started) / 1000, error.failure);
        failed?.(error);
        throw error;
      },
    );
  }

  /** Stops the deadlines' timer (the store is closing). */
  dispose(): void {
    this.deadlines.dispose();
  }

  private failFast(message: string): Promise<never> {
    this.observer?.observeCommand(0, 'unavailable');
    return Promise.reject(new RateLimitStoreError('unavailable', message));
  }
}
