import {
  MemoryStoreDriver,
  T0,
  thresholds,
  reported,
  LIMIT,
} from '../../../../test/support/memory-store-driver';

/**
 * What token-bucket, leaky-bucket and GCRA answer alike: the same arithmetic seen as tokens left,
 * room left or a theoretical arrival time (the per-algorithm specs hold what differs).
 */
describe.each(['token-bucket', 'leaky-bucket', 'gcra'] as const)('%s (memory store)', (algo) => {
  // Capacity 5, one more every 2 s.
  const p = thresholds(algo, 5, 10_000);
  let client: MemoryStoreDriver;
  beforeEach(() => {
    client = new MemoryStoreDriver();
  });
  afterEach(() => client.close());

  it('admits a whole burst at once, each request pushing its reset one interval further', async () => {
    const out = await client.hits(p, 6);
    expect(out.slice(0, 5)).toEqual(
      [4, 3, 2, 1, 0].map((remaining, i) => ({
        ...reported(p),
        allowed: true,
        remaining,
        resetMs: (i + 1) * 2_000,
        retryAfterMs: 0,
      })),
    );
    expect(out[5]).toEqual({
      ...reported(p),
      ...LIMIT,
      remaining: 0,
      retryAfterMs: 2_000,
      resetMs: 10_000,
    });
  });

  it('frees `limit` per window, continuously', async () => {
    await client.hits(p, 5);
    expect(await client.at(T0 + 1_000).hit(p)).toEqual({
      ...reported(p),
      ...LIMIT,
      remaining: 0,
      retryAfterMs: 1_000,
      resetMs: 9_000,
    });
    expect(await client.at(T0 + 2_000).hit(p)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await client.hit(p)).allowed).toBe(false);
    expect(await client.at(T0 + 14_000).peek(p)).toMatchObject({ remaining: 5, resetMs: 0 });
  });

  it('counts whole units left, and waits for the missing part of a cost', async () => {
    await client.hits(p, 5);
    // 2.5 tokens at T0 + 5 s.
    expect(await client.at(T0 + 5_000).hit(p, 3)).toEqual({
      ...reported(p),
      ...LIMIT,
      remaining: 2,
      retryAfterMs: 1_000,
      resetMs: 5_000,
    });
    expect(await client.hit(p)).toMatchObject({ allowed: true, remaining: 1, resetMs: 7_000 });
  });

  it('a burst above the limit allows a larger first burst at the same rate', async () => {
    const bursty = thresholds(algo, 1, 1_000, { burst: 10 });
    const out = await client.hits(bursty, 11);
    expect(out.filter((o) => o.allowed)).toHaveLength(10);
    expect(out[0]).toMatchObject({ remaining: 9, resetMs: 1_000 });
    expect(out[10]).toMatchObject({ ...LIMIT, retryAfterMs: 1_000, resetMs: 10_000 });
  });

  it('keeps its state only until the burst is whole again', async () => {
    await client.hits(p, 2);
    expect(client.pttl(p)).toBe(4_000);
    client.at(T0 + 4_000);
    expect(client.pttl(p)).toBe(-2);
  });
});

describe.each(['token-bucket', 'leaky-bucket'] as const)('%s (memory store)', (algo) => {
  it('frees nothing when a test clock goes back', async () => {
    const p = thresholds(algo, 5, 10_000);
    const client = new MemoryStoreDriver();
    try {
      await client.at(T0 + 5_000).hit(p);
      expect(await client.at(T0).hit(p)).toMatchObject({ allowed: true, remaining: 3 });
    } finally {
      client.close();
    }
  });
});
