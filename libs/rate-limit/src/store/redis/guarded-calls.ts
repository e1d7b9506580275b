import { RateLimitStoreError, type StoreFailure } from '../../errors/rate-limit-store.error';
import type { CircuitBreaker } from './circuit-breaker';
import type { RedisClient, RoundTrip } from './redis-script';
import { withTimeout } from './with-timeout';

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
  constructor(
    private readonly client: RedisClient,
    private readonly breaker: CircuitBreaker,
    private readonly timeoutMs: number,
    private readonly observer?: StoreObserver,
  ) {}

  /** Runs `command`, whose every round trip to Redis must answer within the command timeout. */
  async send<T>(command: (roundTrip: RoundTrip) => Promise<T>): Promise<T> {
    if (this.client.status !== 'ready') {
      return this.failFast(`Redis is not connected (${this.client.status})`);
    }
    if (this.breaker.isOpen) return this.failFast('Redis circuit is open after repeated failures');
    const started = performance.now();
    try {
      const result = await command(this.roundTrip);
      this.breaker.succeeded();
      this.observer?.observeCommand((performance.now() - started) / 1000);
      return result;
    } catch (caught) {
      this.breaker.failed();
      const error =
        caught instanceof RateLimitStoreError
          ? caught
          : new RateLimitStoreError('error', `Redis failed: ${(caught as Error).message}`, {
              cause: caught,
            });
      this.observer?.observeCommand((performance.now() - started) / 1000, error.failure);
      throw error;
    }
  }

  private readonly roundTrip: RoundTrip = (reply) => withTimeout(reply, this.timeoutMs);

  private failFast(message: string): never {
    this.observer?.observeCommand(0, 'unavailable');
    throw new RateLimitStoreError('unavailable', message);
  }
}
