import Redis from 'ioredis';
import { RateLimitStoreError } from '../src/errors/rate-limit-store.error';
import { KeyBuilder } from '../src/keys/key-builder';
import { RedisStore } from '../src/store/redis/redis-store';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { decideCalls } from './support/redis-command-counts';
import { Client, policy } from './support/store-harness';

/**
 * Consume calls made in the same event-loop turn share one script call on a single Redis. Each
 * call (a group: one identity's policies) must stay exact and all-or-nothing on its own.
 */
describe('RedisStore batching of concurrent consume calls', () => {
  let server: TestRedis;
  let admin: Redis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    admin = new Redis(server.url);
    redis = new Redis(server.url);
    await redis.ping();
  });
  afterAll(async () => {
    redis.disconnect();
    admin.disconnect();
    await server.close();
  });

  const scriptCalls = () => decideCalls(admin);

  function clients(store: RedisStore, count: number): Client[] {
    const keys = new KeyBuilder(uniquePrefix());
    const sut = { store, keys, keyCount: async () => 0, pttl: async () => 0 };
    return Array.from({ length: count }, (_, i) => new Client(sut, `ip:10.0.0.${i}`));
  }

  it('decides 100 concurrent calls of 100 identities in one or two script calls', async () => {
    const store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
    const p = policy({ algo: 'fixed-window', limit: 3, window: '1h' });
    const callers = clients(store, 100);
    await callers[0].hit(p); // loads the script, outside the count
    await admin.config('RESETSTAT');
    const outcomes = await Promise.all(callers.map((c) => c.hit(p)));
    expect(await scriptCalls()).toBeLessThanOrEqual(2);
    expect(outcomes[0]).toMatchObject({ allowed: true, remaining: 1 });
    for (const outcome of outcomes.slice(1)) {
      expect(outcome).toMatchObject({ allowed: true, remaining: 2 });
    }
  });

  it.each([
    'fixed-window',
    'sliding-window-counter',
    'token-bucket',
    'leaky-bucket',
    'gcra',
  ] as const)(
    'decides 50 calls of one identity exactly in two calls of 25 (split so they overlap), and writes its state with a TTL (%s)',
    async (algo) => {
      const store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
      const p = policy({ algo, limit: 30, window: '1h' });
      const [caller, warmUp] = clients(store, 2);
      await warmUp.hit(p); // loads this algorithm's script, outside the count
      await admin.config('RESETSTAT');
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => caller.hit(p)));
      // Nothing else in flight: the batch of 50 goes as two calls, each deciding one key 25 times.
      expect(await scriptCalls()).toBe(2);
      const admitted = outcomes.filter((o) => o.allowed);
      expect(admitted).toHaveLength(30);
      expect(admitted.map((o) => o.remaining).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 30 }, (_, i) => i),
      );
      const ttl = await admin.pttl(caller.entry(p).key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(2 * 3_600_000);
      expect((await caller.peek(p)).remaining).toBe(0);
    },
  );

  it('keeps each call all-or-nothing: a rejected group charges nothing, its neighbours pass', async () => {
    const store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
    const wide = policy({ algo: 'token-bucket', limit: 10, window: '1h' }, 'wide');
    const narrow = policy({ algo: 'gcra', limit: 1, window: '1h' }, 'narrow');
    const [blocked, free] = clients(store, 2);
    expect((await blocked.run('consume', [wide, narrow])).admitted).toBe(true);

    await admin.config('RESETSTAT');
    const [again, other] = await Promise.all([
      blocked.run('consume', [wide, narrow]),
      free.run('consume', [wide, narrow]),
    ]);
    expect(await scriptCalls()).toBe(1);
    expect(again.admitted).toBe(false);
    expect(again.decisions.map((o) => o.allowed)).toEqual([true, false]);
    expect(other.admitted).toBe(true);
    // The wide policy admitted the rejected call but was not charged for it.
    expect((await blocked.peek(wide)).remaining).toBe(9);
    expect((await free.peek(wide)).remaining).toBe(9);
  });

  it('mixes algorithms and penalties (block keys only where blockFor is set) in one call', async () => {
    const store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
    const penal = policy({ algo: 'sliding-window', limit: 1, window: '1h', blockFor: '1m' }, 'pen');
    const plain = policy({ algo: 'fixed-window', limit: 1, window: '1h' }, 'plain');
    const [a, b, c] = clients(store, 3);
    await a.hit(penal);

    await admin.config('RESETSTAT');
    const [overPenal, firstPlain, secondPenal] = await Promise.all([
      a.hit(penal),
      b.hit(plain),
      c.hit(penal),
    ]);
    expect(await scriptCalls()).toBe(1);
    expect(overPenal).toMatchObject({ allowed: false, reason: 'limit' });
    // The penalty (blockFor 1 min) sets the wait, longer than nothing.
    expect(overPenal.retryAfterMs).toBeGreaterThanOrEqual(60_000);
    expect(firstPlain).toMatchObject({ allowed: true, remaining: 0 });
    expect(secondPenal).toMatchObject({ allowed: true, remaining: 0 });
    expect(await a.hit(penal)).toMatchObject({ allowed: false, reason: 'blocked' });
    // Each charge is under its own client's key: after a's block key, the next group's keys
    // start at the next one, not one further.
    expect((await b.peek(plain)).remaining).toBe(0);
    expect((await c.peek(penal)).remaining).toBe(0);
  });

  it("never lends one group's block key to the next group's entry without a penalty", async () => {
    const store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
    const penal = policy({ algo: 'fixed-window', limit: 1, window: '1h', blockFor: '1m' }, 'pen2');
    const plain = policy({ algo: 'fixed-window', limit: 5, window: '1h' }, 'plain2');
    const wide = policy({ algo: 'fixed-window', limit: 100, window: '1h' }, 'wide2');
    const [a, b] = clients(store, 2);
    await a.run('consume', [penal, wide]);
    expect((await a.run('consume', [penal, wide])).decisions[0]).toMatchObject({ reason: 'limit' });
    // Groups of two entries, decided in the slots the groups of one call share.
    await admin.config('RESETSTAT');
    const [blocked, free] = await Promise.all([
      a.run('consume', [penal, wide]),
      b.run('consume', [plain, wide]),
    ]);
    expect(await scriptCalls()).toBe(1);
    expect(blocked.decisions[0]).toMatchObject({ allowed: false, reason: 'blocked' });
    expect(free.admitted).toBe(true);
    expect(free.decisions[0]).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('fails only the call whose key Redis cannot read; its neighbours in the batch are decided', async () => {
    const store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
    const p = policy({ algo: 'fixed-window', limit: 5, window: '1h' });
    const [poisoned, healthy] = clients(store, 2);
    await admin.hset(poisoned.entry(p).key, 'not', 'a counter'); // written by hand, wrong type
    await healthy.hit(p);

    await admin.config('RESETSTAT');
    const [failed, decided] = await Promise.all([
      poisoned.hit(p).catch((e: unknown) => e),
      healthy.hit(p),
    ]);
    expect(await scriptCalls()).toBe(1);
    expect(failed).toBeInstanceOf(RateLimitStoreError);
    expect((failed as RateLimitStoreError).failure).toBe('error');
    expect((failed as Error).message).toContain('WRONGTYPE');
    expect(decided).toMatchObject({ allowed: true, remaining: 3 });
    expect(await admin.hgetall(poisoned.entry(p).key)).toEqual({ not: 'a counter' });
    // Redis itself is fine: more bad-key failures in a row than the breaker's threshold (3)
    // do not open it, and the healthy client is still decided by Redis.
    for (let i = 0; i < 4; i++) {
      expect(await poisoned.hit(p).catch((e: unknown) => e)).toBeInstanceOf(RateLimitStoreError);
    }
    expect(store.breaker.isOpen).toBe(false);
    expect(await healthy.hit(p)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('fails a group of several policies whose key Redis cannot read; the next group is decided', async () => {
    const store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
    const p = policy({ algo: 'fixed-window', limit: 5, window: '1h' }, 'poison-stack');
    const wide = policy({ algo: 'fixed-window', limit: 100, window: '1h' }, 'poison-wide');
    const [poisoned, healthy] = clients(store, 2);
    await admin.hset(poisoned.entry(p).key, 'not', 'a counter'); // written by hand, wrong type
    await healthy.run('consume', [p, wide]);

    await admin.config('RESETSTAT');
    const [failed, decided] = await Promise.all([
      poisoned.run('consume', [p, wide]).catch((e: unknown) => e),
      healthy.run('consume', [p, wide]),
    ]);
    expect(await scriptCalls()).toBe(1);
    expect(failed).toBeInstanceOf(RateLimitStoreError);
    expect((failed as Error).message).toContain('WRONGTYPE');
    expect(decided.admitted).toBe(true);
    expect(decided.decisions.map((o) => o.remaining)).toEqual([3, 98]);
    expect(await admin.exists(poisoned.entry(wide).key)).toBe(0); // nothing of it charged
  });

  it('sends a batch even when the application fakes timers (jest.useFakeTimers)', async () => {
    const store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
    const p = policy({ algo: 'gcra', limit: 5, window: '1h' });
    const [caller] = clients(store, 1);
    jest.useFakeTimers();
    try {
      expect(await caller.hit(p)).toMatchObject({ allowed: true, remaining: 4 });
    } finally {
      jest.useRealTimers();
    }
  }, 5_000);

  it('fails every call of a batch that timed out, with a typed error, and resends none', async () => {
    const store = new RedisStore({ client: redis, commandTimeoutMs: 100 });
    const p = policy({ algo: 'fixed-window', limit: 10, window: '1h' });
    const callers = clients(store, 5);
    await callers[0].hit(p);
    await admin.client('PAUSE', 300, 'ALL');
    const errors = await Promise.all(callers.map((c) => c.hit(p).catch((e: unknown) => e)));
    for (const error of errors) {
      expect(error).toBeInstanceOf(RateLimitStoreError);
      expect((error as RateLimitStoreError).failure).toBe('timeout');
    }
    // Once Redis resumes, the batch it held ran exactly once.
    await admin.ping();
    expect((await callers[0].peek(p)).remaining).toBe(8);
    expect((await callers[1].peek(p)).remaining).toBe(9);
  });
});
