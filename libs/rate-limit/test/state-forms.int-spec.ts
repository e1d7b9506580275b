/**
 * On Redis time, fixed-window and GCRA keep part of their state in the key's expiry (the
 * expiry form; lua/fixed-window.lua, lua/gcra.lua): the value is then a small integer, one of
 * Redis's shared objects, so a client costs Redis its key and expiry alone. Decisions on a test
 * clock write the packed or absolute form (covered by conformance.int-spec.ts); both are read.
 */
import Redis from 'ioredis';
import { KeyBuilder } from '../src/keys/key-builder';
import { RedisStore } from '../src/store/redis/redis-store';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { commandCounts } from './support/redis-command-counts';
import { Client, policy } from './support/store-harness';

/** OBJECT REFCOUNT of a shared object (OBJ_SHARED_REFCOUNT): no allocation of its own. */
const SHARED = 2_147_483_647;

let server: TestRedis;
let admin: Redis;
let redis: Redis;
let c: Client;

beforeAll(async () => {
  server = await startTestRedis();
  admin = new Redis(server.url);
  redis = new Redis(server.url);
  await redis.ping();
  const store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
  const sut = {
    store,
    keys: new KeyBuilder(uniquePrefix()),
    keyCount: async () => 0,
    pttl: async () => 0,
  };
  c = new Client(sut, 'ip:10.7.0.1');
});
afterAll(async () => {
  redis.disconnect();
  admin.disconnect();
  await server.close();
});

/** Redis's clock, in microseconds. */
async function redisNowUs(): Promise<number> {
  const [s, us] = await admin.time();
  return Number(s) * 1_000_000 + Number(us);
}

describe('fixed-window', () => {
  const HOUR = 3_600_000;

  it('keeps the count alone, a shared integer, expiring at the end of its window', async () => {
    const p = policy({ algo: 'fixed-window', limit: 5, window: '1h' }, 'fw-form');
    const key = c.entry(p).key;
    const before = await redisNowUs();
    expect(await c.hit(p)).toMatchObject({ allowed: true, remaining: 4 });
    expect(await admin.get(key)).toBe('1');
    expect(await admin.object('REFCOUNT', key)).toBe(SHARED);
    const endMs = await admin.pexpiretime(key);
    expect(endMs % HOUR).toBe(0);
    expect(endMs - before / 1000).toBeGreaterThan(0);
    expect(endMs - before / 1000).toBeLessThanOrEqual(HOUR);
    // A charge in the same window is an INCRBY (no SET): the expiry stays the window's end.
    const before2 = await commandCounts(admin);
    expect(await c.hit(p)).toMatchObject({ allowed: true, remaining: 3 });
    const after2 = await commandCounts(admin);
    expect(['incrby', 'set'].map((name) => after2(name) - before2(name))).toEqual([1, 0]);
    expect(await admin.get(key)).toBe('2');
    expect(await admin.pexpiretime(key)).toBe(endMs);
  });

  it('keeps that form for every policy of a stacked call whose keys are distinct', async () => {
    const a = policy({ algo: 'fixed-window', limit: 5, window: '1h' }, 'fw-stack-a');
    const b = policy({ algo: 'fixed-window', limit: 9, window: '1h' }, 'fw-stack-b');
    const reply = await c.run('consume', [a, b]);
    expect(reply.decisions.map((o) => o.remaining)).toEqual([4, 8]);
    for (const p of [a, b]) {
      const key = c.entry(p).key;
      expect(await admin.get(key)).toBe('1');
      expect((await admin.pexpiretime(key)) % HOUR).toBe(0);
    }
  });

  it("moves a count of another window length (a runtime change) to now's window, expiry included", async () => {
    const p = policy({ algo: 'fixed-window', limit: 5, window: '1h' }, 'fw-moved');
    const key = c.entry(p).key;
    // Counted under a 2-minute window that ends later than any boundary of the hour just now.
    const otherEndMs = Math.floor((await redisNowUs()) / 1000) + 120_000 + 7;
    await admin.set(key, '3', 'PXAT', otherEndMs);
    expect(await c.hit(p)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await admin.get(key)).toBe('4');
    expect((await admin.pexpiretime(key)) % HOUR).toBe(0);
  });

  it('moves such a count in a stacked call too', async () => {
    const p = policy({ algo: 'fixed-window', limit: 5, window: '1h' }, 'fw-moved-stack');
    const wide = policy({ algo: 'fixed-window', limit: 50, window: '1h' }, 'fw-moved-stack-w');
    const key = c.entry(p).key;
    const otherEndMs = Math.floor((await redisNowUs()) / 1000) + 120_000 + 7;
    await admin.set(key, '3', 'PXAT', otherEndMs);
    const reply = await c.run('consume', [p, wide]);
    expect(reply.decisions.map((o) => o.remaining)).toEqual([1, 49]);
    expect(await admin.get(key)).toBe('4');
    expect((await admin.pexpiretime(key)) % HOUR).toBe(0);
  });

  it('reads a packed count (a test clock or a cached call wrote it) and writes it back in the expiry form', async () => {
    const p = policy({ algo: 'fixed-window', limit: 5, window: '1h' }, 'fw-packed');
    const key = c.entry(p).key;
    const endMs = (Math.floor((await redisNowUs()) / 1000 / HOUR) + 1) * HOUR;
    await admin.set(key, `-${endMs}000002`, 'PXAT', endMs);
    expect(await c.hit(p)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await admin.get(key)).toBe('3');
    expect(await admin.pexpiretime(key)).toBe(endMs);
  });

  it('reads a count without an expiry, or of a window that ended, as no count', async () => {
    const p = policy({ algo: 'fixed-window', limit: 5, window: '1h' }, 'fw-no-expiry');
    const key = c.entry(p).key;
    await admin.set(key, '4');
    expect(await c.hit(p)).toMatchObject({ allowed: true, remaining: 4 });
    expect(await admin.pexpiretime(key)).toBeGreaterThan(0);
  });

  it('reads a value it never writes (not a number, a negative count) as no count', async () => {
    const endMs = (Math.floor((await redisNowUs()) / 1000 / HOUR) + 1) * HOUR;
    const values = ['x', ' -3', `-${endMs}-00003`, `-${endMs}abcdef`, `-${endMs}:x`];
    for (const [i, value] of values.entries()) {
      const p = policy({ algo: 'fixed-window', limit: 5, window: '1h' }, `fw-garbled-${i}`);
      await admin.set(c.entry(p).key, value, 'PXAT', endMs);
      expect([value, await c.hit(p)]).toMatchObject([value, { allowed: true, remaining: 4 }]);
    }
  });
});

describe('gcra', () => {
  it('keeps how far before its expiry the TAT is: a shared integer of whole microseconds', async () => {
    const p = policy({ algo: 'gcra', limit: 5, window: 10_000 }, 'gcra-form'); // one per 2 s
    const key = c.entry(p).key;
    const before = await redisNowUs();
    expect(await c.hit(p)).toMatchObject({ allowed: true, remaining: 4 });
    const after = await redisNowUs();
    const d = Number(await admin.get(key));
    expect(d).toBeGreaterThanOrEqual(0);
    expect(d).toBeLessThan(1_000);
    expect(await admin.object('REFCOUNT', key)).toBe(SHARED);
    // The TAT: one interval after the decision, which lies between before and after.
    const tat = (await admin.pexpiretime(key)) * 1000 - d;
    expect(tat).toBeGreaterThanOrEqual(before + 2_000_000);
    expect(tat).toBeLessThanOrEqual(after + 2_000_000);
    // It goes on counting from there: the burst of 5, then a refusal.
    for (let i = 3; i >= 0; i--) expect(await c.hit(p)).toMatchObject({ remaining: i });
    expect(await c.hit(p)).toMatchObject({ allowed: false, reason: 'limit' });
  });

  it('keeps a fraction of a microsecond after ":", and reads the absolute form too', async () => {
    const thirds = policy({ algo: 'gcra', limit: 3, window: 10_000 }, 'gcra-thirds');
    await c.hit(thirds);
    expect(await admin.get(c.entry(thirds).key)).toMatch(/^\d{1,3}:\d+$/);
    expect(await c.hit(thirds)).toMatchObject({ allowed: true, remaining: 1 });
    // The absolute form (a test clock wrote it): two intervals of 2 s ahead of now, in whole µs.
    const p = policy({ algo: 'gcra', limit: 5, window: 10_000 }, 'gcra-absolute');
    const key = c.entry(p).key;
    await admin.set(key, String((await redisNowUs()) + 4_000_000), 'PX', 60_000);
    expect(await c.hit(p)).toMatchObject({ allowed: true, remaining: 2 });
    expect(Number(await admin.get(key))).toBeLessThan(1_000);
  });

  it('reads a fraction in the expiry form: a TAT half a us later leaves one unit less', async () => {
    // One unit per us: a TAT half a us later shows as one unit less left, whatever Redis's now,
    // as long as both are read at the same now (one call).
    const unitPerUs = (name: string) =>
      policy({ algo: 'gcra', limit: 1_000_000_000, window: '1000s' }, name);
    const [whole, half] = [unitPerUs('gcra-whole'), unitPerUs('gcra-half')];
    const atMs = Math.floor((await redisNowUs()) / 1000) + 10_000;
    await admin.set(c.entry(whole).key, '500', 'PXAT', atMs);
    await admin.set(c.entry(half).key, '500:2147483648', 'PXAT', atMs); // 499.5 us before it
    const { decisions } = await c.run('peek', [whole, half]);
    expect(decisions[0].remaining).toBeLessThan(1_000_000_000 - 9_000_000);
    expect(decisions[1].remaining).toBe(decisions[0].remaining - 1);
  });

  it('reads an offset of 1000 with a fraction (a TAT just past a whole ms) as the expiry form', async () => {
    // limit 3 per 10 s: an interval of 3,333,333.33 us. The writer leaves a TAT that falls
    // f / 2^32 us after a whole ms as expiring at the next ms, 1000 - f / 2^32 us before it.
    const thirds = policy({ algo: 'gcra', limit: 3, window: 10_000 }, 'gcra-offset-1000');
    const key = c.entry(thirds).key;
    const atMs = Math.floor((await redisNowUs()) / 1000) + 3_334;
    await admin.set(key, '1000:1431655765', 'PXAT', atMs);
    // The TAT is about one interval ahead: two more requests of the burst of 3, then a refusal.
    expect(await c.hit(thirds)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await c.hit(thirds)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await c.hit(thirds)).toMatchObject({ allowed: false, reason: 'limit' });
  });
});
