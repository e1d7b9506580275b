import type { INestApplication } from '@nestjs/common';
import { RedisConnection } from '@app/rate-limit/store/redis/redis-connection';
import type { RedisClient } from '@app/rate-limit/store/redis/redis-script';
import { RATE_LIMIT_STORE } from '@app/rate-limit/rate-limit.constants';
import type { CircuitBreaker } from '@app/rate-limit/store/redis/circuit-breaker';
import { RedisStore } from '@app/rate-limit/store/redis/redis-store';
import type { RateLimitStore } from '@app/rate-limit/store/rate-limit-store.interface';

/** The ioredis client an app decides with (fails if the app runs on the memory store). */
export function redisClientOf(app: INestApplication): RedisClient {
  const client = app.get(RedisConnection).client;
  if (!client) throw new Error('this app has no Redis client (memory store)');
  return client;
}

/**
 * Resolves on the client's `event` (or at once when `done()` already holds); rejects after
 * `timeoutMs` with the status it got stuck in. ioredis sets `status` before it emits the event
 * (next tick), so checking first and then listening cannot miss the transition.
 */
function awaitEvent(
  client: RedisClient,
  event: string,
  done: () => boolean,
  timeoutMs: number,
): Promise<void> {
  if (done()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onEvent = (): void => {
      if (!done()) return;
      clearTimeout(timer);
      client.off(event, onEvent);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off(event, onEvent);
      reject(
        new Error(
          `Redis client did not emit '${event}' within ${timeoutMs} ms (status: ${client.status})`,
        ),
      );
    }, timeoutMs);
    client.on(event, onEvent);
  });
}

/**
 * Waits (bounded) until the app decides with Redis again: its client is `ready` (connected) and
 * the store's circuit breaker, opened by failures during a fault, has closed after a probe.
 */
export async function untilReady(app: INestApplication, timeoutMs = 10_000): Promise<void> {
  const client = redisClientOf(app);
  await awaitEvent(client, 'ready', () => client.status === 'ready', timeoutMs);
  const store = app.get<RateLimitStore>(RATE_LIMIT_STORE);
  if (store instanceof RedisStore) await untilCircuitClosed(store.breaker, timeoutMs);
}

function untilCircuitClosed(breaker: CircuitBreaker, timeoutMs: number): Promise<void> {
  if (!breaker.isOpen) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`circuit still open after ${timeoutMs} ms`)),
      timeoutMs,
    );
    breaker.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Waits (bounded) until the app's Redis client has noticed a lost connection. */
export function untilDisconnected(app: INestApplication, timeoutMs = 5_000): Promise<void> {
  const client = redisClientOf(app);
  return awaitEvent(client, 'close', () => client.status !== 'ready', timeoutMs);
}

/**
 * Waits (bounded) until the app's Redis client schedules a reconnect attempt at least
 * `minDelayMs` away: ioredis emits 'reconnecting' with the retry strategy's delay, so this marks
 * the point where its backoff has grown that far (a long outage, as a client sees it).
 */
export function untilReconnectDelay(
  app: INestApplication,
  minDelayMs: number,
  timeoutMs = 10_000,
): Promise<void> {
  const client = redisClientOf(app);
  return new Promise((resolve, reject) => {
    const onReconnecting = (delay: unknown): void => {
      if (typeof delay !== 'number' || delay < minDelayMs) return;
      clearTimeout(timer);
      client.off('reconnecting', onReconnecting);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off('reconnecting', onReconnecting);
      reject(
        new Error(
          `no reconnect delay >= ${minDelayMs} ms within ${timeoutMs} ms (status: ${client.status})`,
        ),
      );
    }, timeoutMs);
    client.on('reconnecting', onReconnecting);
  });
}
