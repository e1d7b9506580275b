import Redis from 'ioredis';
import { RateLimitStoreError } from '../src/errors/rate-limit-store.error';
import { KeyBuilder } from '../src/keys/key-builder';
import { RedisStore } from '../src/store/redis/redis-store';
import { LIMITER_CLIENT_DEFAULTS } from '../src/store/redis/create-redis-client';
import { commandCounts } from './support/redis-command-counts';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { timeWithStalls } from './support/stall-meter';
import { Client, T0, policy } from './support/store-harness';

describe('RedisStore against a real Redis', () => {
  let server: TestRedis;
  let admin: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.close();
  });

  function clientFor(
    redis: Redis,
    timeoutMs = 1_000,
    decideWith: 'functions' | 'scripts' = 'functions',
  ): Client {
    const store = new RedisStore({ client: redis, commandTimeoutMs: timeoutMs, decideWith });
    return new Client(
      { store, keys: new KeyBuilder(uniquePrefix()), keyCount: async () => 0, pttl: async () => 0 },
      'ip:1',
    );
  }

  /** A client on a connection of its own, deciding with `decideWith`, closed after `use`. */
  async function withClient(
    decideWith: 'functions' | 'scripts',
    use: (c: Client) => Promise<void>,
  ): Promise<void> {
    const redis = new Redis(server.url);
    try {
      await redis.ping();
      await use(clientFor(redis, 1_000, decideWith));
    } finally {
      redis.disconnect();
    }
  }

  it('loads the script again after SCRIPT FLUSH (NOSCRIPT -> EVAL) and keeps counting', async () => {
    const redis = new Redis(server.url);
    await redis.ping();
    const c = clientFor(redis, 1_000, 'scripts');
    const p = policy({ algo: 'gcra', limit: 3, window: 10_000 });
    expect((await c.hit(p, T0)).remaining).toBe(2);
    await admin.script('FLUSH');
    expect((await c.hit(p, T0)).remaining).toBe(1);
    expect((await c.hit(p, T0)).remaining).toBe(0);
    redis.disconnect();
  });

  it('gcra keeps a TAT of whole microseconds as one integer, and a fraction after ":"', async () => {
    const redis = new Redis(server.url);
    await redis.ping();
    const c = clientFor(redis);
    const p = policy({ algo: 'gcra', limit: 4, window: 10_000 });
    // Two units already used: the TAT, two 2.5 s intervals ahead of T0, in whole microseconds.
    await admin.set(c.entry(p).key, String(T0 * 1000 + 5_000_000), 'PX', 60_000);
    expect(await c.hit(p, T0)).toMatchObject({ allowed: true, remaining: 1 });
    // Whole microseconds: stored as an integer (no ":<fraction>"), which Redis keeps in 16 B.
    expect(await admin.get(c.entry(p).key)).toBe(`${T0 * 1000 + 7_500_000}`);
    expect(await admin.object('ENCODING', c.entry(p).key)).toBe('int');
    // An interval of no whole microsecond leaves a fraction: 10 s / 3 = 3333333.33 us.
    const thirds = policy({ algo: 'gcra', limit: 3, window: 10_000 }, 'thirds');
    await c.hit(thirds, T0);
    expect(await admin.get(c.entry(thirds).key)).toMatch(
      new RegExp(`^${T0 * 1000 + 3_333_333}:14316557\\d\\d$`), // a third of 2^32
    );
    redis.disconnect();
  });

  it('fixed-window keeps one integer per client: the window end and the count', async () => {
    const redis = new Redis(server.url);
    await redis.ping();
    const c = clientFor(redis);
    const p = policy({ algo: 'fixed-window', limit: 5, window: 10_000 });
    const key = c.entry(p).key;
    const endMs = (Math.floor(T0 / 10_000) + 1) * 10_000;
    await admin.set(key, `-${endMs}000003`, 'PX', 60_000);
    expect(await c.hit(p, T0)).toMatchObject({ allowed: true, remaining: 1 });
    // "-<window end, ms><count, 6 digits>": an integer, which Redis keeps in 16 B.
    expect(await admin.get(key)).toBe(`-${endMs}000004`);
    expect(await admin.object('ENCODING', key)).toBe('int');
    expect(await c.hit(p, T0)).toMatchObject({ allowed: true, remaining: 0 });
    // A count of a million or more does not fit the 6 digits: "-<window end>:<count>".
    const big = policy({ algo: 'fixed-window', limit: 2_000_000, window: 10_000 }, 'big');
    await c.hit(big, T0, 1_500_000);
    expect(await admin.get(c.entry(big).key)).toBe(`-${endMs}:1500000`);
    expect(await c.hit(big, T0, 500_001)).toMatchObject({ allowed: false, remaining: 500_000 });
    // The next window starts from zero.
    expect(await c.hit(p, endMs)).toMatchObject({ allowed: true, remaining: 4 });
    redis.disconnect();
  });

  it.each(['functions', 'scripts'] as const)(
    'a refund that fills a token bucket again removes its key (full and missing are one state; %s)',
    (decideWith) =>
      withClient(decideWith, async (c) => {
        const p = policy({ algo: 'token-bucket', limit: 10, window: 10_000, burst: 5 });
        const key = c.entry(p).key;
        expect(await c.hit(p, T0, 2)).toMatchObject({ allowed: true, remaining: 3 });
        expect(await admin.exists(key)).toBe(1);
        await c.refund(p, T0, T0, 2);
        // Exactly full: no key at all, not a key holding a full bucket that expires in 1 ms.
        expect(await admin.exists(key)).toBe(0);
        // A refund never lifts the bucket over its capacity.
        expect(await c.hit(p, T0, 1)).toMatchObject({ allowed: true, remaining: 4 });
        await c.refund(p, T0, T0, 3);
        expect(await admin.exists(key)).toBe(0);
        expect((await c.peek(p, T0)).remaining).toBe(5);
      }),
  );

  it.each(['functions', 'scripts'] as const)(
    'leaky-bucket: an emptied bucket has no key, a lowered capacity leaves 0, a garbled value is empty (%s)',
    (decideWith) =>
      withClient(decideWith, async (c) => {
        const p = policy({ algo: 'leaky-bucket', limit: 5, window: 10_000, burst: 5 });
        const key = c.entry(p).key;
        // A refund to exactly empty: no key, not a key holding an empty bucket.
        expect(await c.hit(p, T0, 2)).toMatchObject({ allowed: true, remaining: 3 });
        await c.refund(p, T0, T0, 2);
        expect(await admin.exists(key)).toBe(0);
        // Filled to 5, then the capacity lowered to 2 at runtime (same key): the level is kept,
        // above the new capacity, and nothing is left.
        expect(await c.hit(p, T0, 5)).toMatchObject({ allowed: true, remaining: 0 });
        const lowered = policy({ algo: 'leaky-bucket', limit: 5, window: 10_000, burst: 2 });
        expect(await c.hit(lowered, T0)).toMatchObject({ allowed: false, remaining: 0 });
        // A value written by hand without its time reads as an empty bucket.
        await admin.set(key, 'garbled', 'PX', 60_000);
        expect(await c.hit(p, T0)).toMatchObject({ allowed: true, remaining: 4 });
      }),
  );

  it.each(['functions', 'scripts'] as const)(
    'sliding-window: a charge trims the members that left the window (the log stays bounded; %s)',
    (decideWith) =>
      withClient(decideWith, async (c) => {
        const p = policy({ algo: 'sliding-window', limit: 5, window: 1_000 });
        const key = c.entry(p).key;
        for (let i = 0; i < 5; i++) await c.hit(p, T0);
        for (let i = 0; i < 3; i++) await c.hit(p, T0 + 1_500);
        // A client that never pauses for a window would otherwise grow its log without end.
        expect(await admin.zcard(key)).toBe(3);
      }),
  );

  it.each(['functions', 'scripts'] as const)(
    'sliding-window-counter: a value with a field that is not a number reads as no counts (%s)',
    (decideWith) =>
      withClient(decideWith, async (c) => {
        const p = policy({ algo: 'sliding-window-counter', limit: 5, window: 10_000 });
        const key = c.entry(p).key;
        const index = Math.floor(T0 / 10_000);
        for (const garbled of [
          `x:10000:3:0`,
          `${index}:x:3:0`,
          `${index}:10000:x:0`,
          `${index}:10000:3:x`,
        ]) {
          await admin.set(key, garbled, 'PX', 60_000);
          expect(await c.hit(p, T0)).toMatchObject({ allowed: true, remaining: 4 });
        }
      }),
  );

  it.each(['functions', 'scripts'] as const)(
    'sliding-window-counter: after a change of window, what is kept lives as long as it weighs (%s)',
    (decideWith) =>
      withClient(decideWith, async (c) => {
        const tenSeconds = policy({ algo: 'sliding-window-counter', limit: 1, window: 10_000 });
        const key = c.entry(tenSeconds).key;
        // T0 is 1 s into a 10 s window, which ends 9 s later.
        expect((await c.hit(tenSeconds, T0)).allowed).toBe(true);
        // Window now 5 s; 500 ms into the 5 s window after the old one's end, the old count is
        // the previous one (weight 0.9): rejected, and moved into the new windows, kept 4.5 s.
        const fiveSeconds = policy({ algo: 'sliding-window-counter', limit: 1, window: 5_000 });
        expect((await c.hit(fiveSeconds, T0 + 9_500)).allowed).toBe(false);
        const ttl = await admin.pttl(key);
        expect(ttl).toBeGreaterThan(4_000);
        expect(ttl).toBeLessThanOrEqual(4_500);
        // A value whose counts no longer weigh, moved by a rejected request: no key left.
        await admin.set(key, `${Math.floor(T0 / 10_000) - 5}:10000:2:0`, 'PX', 60_000);
        expect(await c.hit(fiveSeconds, T0, 2)).toMatchObject({
          allowed: false,
          reason: 'cost-exceeds-capacity',
        });
        expect(await admin.exists(key)).toBe(0);
      }),
  );

  it.each(['functions', 'scripts'] as const)(
    'gcra: a refund back to now leaves no key; a burst lowered under what is held leaves 0 (%s)',
    (decideWith) =>
      withClient(decideWith, async (c) => {
        const p = policy({ algo: 'gcra', limit: 5, window: 10_000, burst: 5 });
        const key = c.entry(p).key;
        expect(await c.hit(p, T0, 2)).toMatchObject({ allowed: true, remaining: 3 });
        await c.refund(p, T0, T0, 2);
        expect(await admin.exists(key)).toBe(0);
        // Five held, then the burst lowered to 2 at runtime: nothing left, not a negative or 1.
        expect(await c.hit(p, T0, 5)).toMatchObject({ allowed: true, remaining: 0 });
        const lowered = policy({ algo: 'gcra', limit: 5, window: 10_000, burst: 2 });
        expect(await c.hit(lowered, T0)).toMatchObject({ allowed: false, remaining: 0 });
      }),
  );

  it.each(['functions', 'scripts'] as const)(
    'gcra: a value that is neither form reads as no TAT: a full burst is admitted (%s)',
    (decideWith) =>
      withClient(decideWith, async (c) => {
        const p = policy({ algo: 'gcra', limit: 5, window: 10_000, burst: 5 });
        await admin.set(c.entry(p).key, 'not:a-tat', 'PX', 60_000);
        expect(await c.hit(p, T0, 5)).toMatchObject({ allowed: true, remaining: 0 });
      }),
  );

  it('uses EVALSHA: the script is sent in full only once per server', async () => {
    const redis = new Redis(server.url);
    await redis.ping();
    const c = clientFor(redis, 1_000, 'scripts');
    await admin.script('FLUSH');
    await admin.config('RESETSTAT');
    const p = policy({ algo: 'fixed-window', limit: 100, window: 10_000 });
    for (let i = 0; i < 10; i++) await c.hit(p, T0);
    const calls = await commandCounts(admin);
    // The first call's NOSCRIPT leads to one SCRIPT LOAD and the same EVALSHA again.
    expect(calls('evalsha')).toBe(11);
    expect(calls('script\\|load')).toBe(1);
    expect(calls('eval')).toBe(0);
    redis.disconnect();
  });

  it('calls in flight that all get NOSCRIPT share one SCRIPT LOAD instead of each sending the script', async () => {
    const redis = new Redis(server.url);
    await redis.ping();
    await admin.script('FLUSH');
    await admin.config('RESETSTAT');
    const p = policy({ algo: 'fixed-window', limit: 100, window: 10_000 });
    // An explicit time bypasses the batcher: 50 script calls, as a cluster sends a burst.
    const store = new RedisStore({ client: redis, commandTimeoutMs: 1_000, decideWith: 'scripts' });
    const sut = {
      store,
      keys: new KeyBuilder(uniquePrefix()),
      keyCount: async () => 0,
      pttl: async () => 0,
    };
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => new Client(sut, `ip:10.9.0.${i}`).hit(p, T0)),
    );
    expect(outcomes.every((o) => o.allowed && o.remaining === 99)).toBe(true);
    const calls = await commandCounts(admin);
    expect(calls('script\\|load')).toBe(1);
    expect(calls('eval')).toBe(0);
    expect(calls('evalsha')).toBe(100);
    redis.disconnect();
  });

  it('answers a call it cannot even encode with a rejection, never a synchronous throw', async () => {
    // Callers chain on the promise (the engine's onRedisError handling): a throw would skip it.
    await admin.ping();
    const store = new RedisStore({ client: admin, commandTimeoutMs: 1_000 });
    let reply: Promise<unknown> | undefined;
    expect(() => (reply = store.decide('peek', [], 1_000_000))).not.toThrow();
    await expect(reply).rejects.toThrow(TypeError);
  });

  it('rejects every caller of a batch it cannot send, and tells the breaker nothing', async () => {
    // Was thrown inside the batch's flush: an unhandled rejection, and callers waiting forever.
    await admin.ping();
    const store = new RedisStore({ client: admin, commandTimeoutMs: 1_000 });
    const batch = [store.decide('consume', []), store.decide('consume', [])];
    for (const reply of batch) await expect(reply).rejects.toThrow(TypeError);
    const c = new Client(
      { store, keys: new KeyBuilder(uniquePrefix()), keyCount: async () => 0, pttl: async () => 0 },
      'ip:1',
    );
    // Three failures in a row would have opened it: the next call still goes to Redis.
    await store.decide('consume', []).catch(() => undefined);
    expect(store.breaker.isOpen).toBe(false);
    await expect(c.hit(policy({ algo: 'fixed-window', limit: 5 }))).resolves.toMatchObject({
      allowed: true,
    });
    store.onModuleDestroy();
  });

  it('fails fast with a typed error when the client is not connected', async () => {
    const redis = new Redis({ ...LIMITER_CLIENT_DEFAULTS, port: server.port, lazyConnect: true });
    const c = clientFor(redis);
    // What it waited: about 1 ms here; a host that stops this process is no wait of its own.
    const { value: error, waitedMs } = await timeWithStalls(() =>
      c.hit(policy({ algo: 'fixed-window' })).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(RateLimitStoreError);
    expect((error as RateLimitStoreError).failure).toBe('unavailable');
    expect(waitedMs).toBeLessThan(50);
  });

  it('reports a timeout as a typed error within the command timeout and does not resend', async () => {
    const redis = new Redis(server.url);
    await redis.ping();
    const c = clientFor(redis, 100);
    const p = policy({ algo: 'fixed-window', limit: 10, window: 60_000 });
    await c.hit(p, T0); // loads the script
    // CLIENT PAUSE holds every client's commands server-side (and needs no DEBUG rights).
    await admin.client('PAUSE', 400, 'ALL');
    const paused = Date.now();
    const { value: error, waitedMs } = await timeWithStalls(() =>
      c.hit(p, T0).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(RateLimitStoreError);
    expect((error as RateLimitStoreError).failure).toBe('timeout');
    expect(waitedMs).toBeLessThan(100 + 50);
    await new Promise((resolve) => setTimeout(resolve, 400 - (Date.now() - paused) + 20)); // the pause's own length
    // The timed-out command ran once when Redis resumed; nothing resent it.
    expect((await c.peek(p, T0)).remaining).toBe(8);
    redis.disconnect();
  });

  it('tells its late-replies listener what Redis answered to a consume after the call timed out', async () => {
    const redis = new Redis(server.url);
    try {
      await redis.ping();
      const store = new RedisStore({ client: redis, commandTimeoutMs: 100 });
      const late: { keys: string[]; replies: unknown[] }[] = [];
      store.onLateReplies((groups, replies) =>
        late.push({ keys: groups.map((g) => g[0].key), replies: [...replies] }),
      );
      const c = new Client(
        {
          store,
          keys: new KeyBuilder(uniquePrefix()),
          keyCount: async () => 0,
          pttl: async () => 0,
        },
        'ip:late',
      );
      // On T0, not Redis time: a fixed window is aligned to the clock, and a run across its
      // boundary would start the late consume in a new window.
      const p = policy({ algo: 'fixed-window', limit: 10, window: 60_000 });
      expect(await c.hit(p, T0)).toMatchObject({ remaining: 9 }); // loads the script
      await admin.client('PAUSE', 300, 'ALL');
      const error = await c.hit(p, T0).catch((e: unknown) => e);
      expect((error as RateLimitStoreError).failure).toBe('timeout');
      expect(late).toEqual([]);
      await admin.ping(); // answered once the pause is over
      // One connection answers in order: once its next call is answered, so was the late one.
      expect(await c.hit(p, T0)).toMatchObject({ remaining: 7 });
      expect(late).toEqual([
        {
          keys: [c.entry(p).key],
          replies: [
            expect.objectContaining({
              admitted: true,
              decisions: [expect.objectContaining({ remaining: 8 })],
            }),
          ],
        },
      ]);
    } finally {
      redis.disconnect();
    }
  });
});
