import fc from 'fast-check';
import Redis from 'ioredis';
import { KeyBuilder } from '../src/keys/key-builder';
import { RedisStore } from '../src/store/redis/redis-store';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { Client, T0, policy } from './support/store-harness';

/**
 * Client-controlled identities (headers, IPs, API keys) against a real Redis: whatever the text,
 * each identity gets its own key with exactly one hash tag, bounded in length, and no two
 * identities share a key.
 */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom(
      '{',
      '}',
      '*',
      '?',
      '[',
      ']',
      ':',
      '\n',
      '\r',
      '\0',
      '%',
      '~',
      ' ',
      'é',
      '\uD800',
      '\uDC00',
    ),
    maxLength: 30,
  }),
  // 64 KB values, built by repetition (generating them char by char is needlessly slow).
  fc
    .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 50 }), fc.nat(9))
    .map(([unit, n]) => `${n}${unit.repeat(Math.ceil(65_536 / unit.length))}`.slice(0, 65_536)),
);

describe('hostile identities on a real Redis', () => {
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = new Redis(server.url);
    await redis.ping();
  });
  afterAll(async () => {
    redis.disconnect();
    await server.close();
  });

  it('never breaks the key scheme, never collides, never makes an unbounded key', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(hostileText, { minLength: 2, maxLength: 12 }),
        async (identities) => {
          const prefix = uniquePrefix();
          const keys = new KeyBuilder(prefix);
          const sut = {
            store: new RedisStore({ client: redis, commandTimeoutMs: 2_000 }),
            keys,
            keyCount: async () => 0,
            pttl: async () => 0,
          };
          const p = policy({ algo: 'fixed-window', limit: 1, window: 60_000 });
          for (const identity of identities) {
            const client = new Client(sut, identity);
            expect((await client.hit(p, T0)).allowed).toBe(true);
            // A second request of the same identity meets its own state: nothing leaked into another key.
            expect((await client.hit(p, T0)).allowed).toBe(false);
          }
          const stored = await redis.keys(`${prefix}:*`);
          expect(stored).toHaveLength(identities.length);
          for (const key of stored) {
            expect(Buffer.byteLength(key)).toBeLessThan(200);
            expect(key.match(/[{}]/g)).toEqual(['{', '}']);
            expect(key).not.toMatch(/[\s*?[\]\0]/);
          }
          await redis.del(...stored);
        },
      ),
      { numRuns: 40 },
    );
  });
});
