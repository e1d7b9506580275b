import { MemoryStoreDriver, T0, thresholds } from '../../../../test/support/memory-store-driver';

const LIMIT = { allowed: false, reason: 1 };

describe('leaky-bucket (memory store)', () => {
  // Holds 5, leaks one every 2 s.
  const p = thresholds('leaky-bucket', 5, 10_000);
  let client: MemoryStoreDriver;
  beforeEach(() => {
    client = new MemoryStoreDriver();
  });
  afterEach(() => client.close());

  it('fills up at once, each request pushing back the time it is empty again', async () => {
    const out = await client.hits(p, 6);
    expect(out.slice(0, 5)).toEqual(
      [4, 3, 2, 1, 0].map((remaining, i) => ({
        allowed: true,
        remaining,
        resetMs: (i + 1) * 2_000,
        retryAfterMs: 0,
        reason: 0,
      })),
    );
    expect(out[5]).toEqual({ ...LIMIT, remaining: 0, retryAfterMs: 2_000, resetMs: 10_000 });
  });

  it('leaks `limit` per window, continuously', async () => {
    await client.hits(p, 5);
    expect(await client.at(T0 + 1_000).hit(p)).toEqual({
      ...LIMIT,
      remaining: 0,
      retryAfterMs: 1_000,
      resetMs: 9_000,
    });
    expect(await client.at(T0 + 2_000).hit(p)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await client.hit(p)).allowed).toBe(false);
    expect(await client.at(T0 + 14_000).peek(p)).toMatchObject({ remaining: 5, resetMs: 0 });
  });

  it('counts whole units of room, and waits for the missing part of a cost', async () => {
    await client.hits(p, 5);
    // 2.5 units in the bucket at T0 + 5 s.
    expect(await client.at(T0 + 5_000).hit(p, 3)).toEqual({
      ...LIMIT,
      remaining: 2,
      retryAfterMs: 1_000,
      resetMs: 5_000,
    });
    expect(await client.hit(p)).toMatchObject({ allowed: true, remaining: 1, resetMs: 7_000 });
  });

  it('a burst above the limit allows a larger first burst at the same rate', async () => {
    const bursty = thresholds('leaky-bucket', 1, 1_000, { burst: 10 });
    const out = await client.hits(bursty, 11);
    expect(out.filter((o) => o.allowed)).toHaveLength(10);
    expect(out[0]).toMatchObject({ remaining: 9, resetMs: 1_000 });
    expect(out[10]).toMatchObject({ ...LIMIT, retryAfterMs: 1_000, resetMs: 10_000 });
  });

  it('leaks nothing when a test clock goes back', async () => {
    await client.at(T0 + 5_000).hit(p);
    expect(await client.at(T0).hit(p)).toMatchObject({ allowed: true, remaining: 3 });
  });

  it('keeps its level until it has leaked away', async () => {
    await client.hits(p, 2);
    expect(client.pttl(p)).toBe(4_000);
    client.at(T0 + 4_000);
    expect(client.pttl(p)).toBe(-2);
  });

  describe('refund', () => {
    it('takes the cost back out of the bucket', async () => {
      await client.hits(p, 3);
      await client.refund(p, T0);
      expect(await client.peek(p)).toMatchObject({ remaining: 3, resetMs: 4_000 });
      expect(client.pttl(p)).toBe(4_000);
    });

    it('of exactly the level leaves nothing held', async () => {
      await client.hits(p, 2);
      await client.refund(p, T0, 2);
      expect(client.pttl(p)).toBe(-2);
    });

    it('never below empty, and an empty bucket is held as nothing', async () => {
      await client.hit(p);
      await client.refund(p, T0, 3);
      expect((await client.peek(p)).remaining).toBe(5);
      expect(client.pttl(p)).toBe(-2);
    });
  });
});
