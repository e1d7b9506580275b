import Redis from 'ioredis';
import { KeyBuilder } from '../src/keys/key-builder';
import { RATE_LIMIT_ALGORITHMS } from '../src/policy/rate-limit-algorithm';
import { RedisStore } from '../src/store/redis/redis-store';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { Client, T0, policy } from './support/store-harness';

/**
 * Atomicity: 500 concurrent consumes from 4 separate connections against a limit of 100 must
 * admit exactly 100. A get-then-set limiter admits far more under this load.
 */
describe('concurrency on a real Redis', () => {
  const CONNECTIONS = 4;
  const REQUESTS = 500;
  let server: TestRedis;
  let clients: Redis[];

  beforeAll(async () => {
    server = await startTestRedis();
    clients = Array.from({ length: CONNECTIONS }, () => new Redis(server.url));
    await Promise.all(clients.map((c) => c.ping()));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit()));
    await server.close();
  });

  describe.each([
    ['one instant (explicit now)', T0],
    ['Redis server time', undefined],
  ])('%s', (_label, nowMs) => {
    it.each(RATE_LIMIT_ALGORITHMS)('%s admits exactly the limit', async (algo) => {
      // A one-hour window: refill during the burst is far below one unit.
      const p = policy({ algo, limit: 100, window: '1h' });
      const keys = new KeyBuilder(uniquePrefix());
      const callers = clients.map(
        (c) =>
          new Client(
            {
              store: new RedisStore({ client: c, commandTimeoutMs: 10_000 }),
              keys,
              keyCount: async () => 0,
              pttl: async () => 0,
            },
            'ip:192.0.2.1',
          ),
      );
      const outcomes = await Promise.all(
        Array.from({ length: REQUESTS }, (_, i) => callers[i % CONNECTIONS].hit(p, nowMs)),
      );
      expect(outcomes.filter((o) => o.allowed)).toHaveLength(100);
      expect(outcomes.filter((o) => !o.allowed)).toHaveLength(400);
      if (algo === 'sliding-window') {
        // Every admitted unit is its own sorted-set member, even within one microsecond.
        expect(await clients[0].zcard(callers[0].entry(p).key)).toBe(100);
      }
    });
  });
});
