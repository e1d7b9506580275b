import Redis from 'ioredis';
import type { StoreFailure } from '../src/errors/rate-limit-store.error';
import { KeyBuilder } from '../src/keys/key-builder';
import { LIMITER_CLIENT_DEFAULTS, waitUntilReady } from '../src/store/redis/create-redis-client';
import { RedisStore, type StoreObserver } from '../src/store/redis/redis-store';
import { withTimeout } from '../src/store/redis/with-timeout';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { Client, policy } from './support/store-harness';

/** Keeps this process's event loop busy, as parsing a burst of requests does. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * A timeout means "Redis did not answer in time", never "this process did not look": a reply
 * that arrived while the event loop was busy is used, and the circuit breaker stays closed.
 */
describe('command timeout while this process is busy (real Redis)', () => {
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = new Redis(server.url, LIMITER_CLIENT_DEFAULTS);
    expect(await waitUntilReady(redis, 5_000)).toBe(true);
  });
  afterAll(async () => {
    redis.disconnect();
    await server.close();
  });

  it('uses a reply that arrived while the event loop was blocked past the timeout', async () => {
    const reply = withTimeout(redis.ping(), 50);
    spin(200); // the reply is in the socket long before the timer can fire
    await expect(reply).resolves.toBe('PONG');
  });

  it('still times out when Redis really does not answer', async () => {
    await server.pause();
    try {
      const started = performance.now();
      await expect(withTimeout(redis.ping(), 50)).rejects.toMatchObject({ failure: 'timeout' });
      expect(performance.now() - started).toBeLessThan(500);
    } finally {
      await server.resume();
    }
  });

  it('decides in Redis, records no failure and keeps the breaker closed after busy spells', async () => {
    const failures: StoreFailure[] = [];
    const observer: StoreObserver = {
      observeCommand: (_seconds, failure) => failure && failures.push(failure),
      setCircuitOpen: () => undefined,
    };
    const store = new RedisStore({ client: redis, commandTimeoutMs: 20, observer: observer });
    const sut = { store, keys: new KeyBuilder(uniquePrefix()), keyCount: async () => 0 };
    const p = policy({ algo: 'fixed-window', limit: 50, window: 600_000 });
    // Busy spells in a row, each longer than the timeout: timeouts would open the breaker (3 in
    // a row) and send decisions to the fallback. Every other round starts with the library
    // unknown to Redis (as after a restart): the FCALL refused, FUNCTION LOAD, FCALL again, three
    // round trips. After each turn of the event loop (a round trip sent) the loop is kept busy
    // past the timeout, so every reply arrives while this process does not look; before, the
    // spell followed the first turn only, and the library's load and second FCALL had to be
    // answered within a real 20 ms on a busy host.
    for (let round = 0; round < 5; round++) {
      if (round % 2 === 0) await redis.call('FUNCTION', 'FLUSH');
      const calls = Array.from({ length: 20 }, (_, i) =>
        new Client({ ...sut, pttl: async () => 0 }, `ip:${round}.${i % 4}`).hit(p),
      );
      let settled = false;
      const outcomes = Promise.all(calls).finally(() => (settled = true));
      while (!settled) {
        await new Promise((resolve) => setImmediate(resolve));
        spin(100);
      }
      expect((await outcomes).every((o) => o.allowed)).toBe(true);
    }
    expect(failures).toEqual([]);
    expect(store.breaker.isOpen).toBe(false);
    store.onModuleDestroy();
  });
});
