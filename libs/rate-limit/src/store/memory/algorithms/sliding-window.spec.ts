import {
  MemoryStoreDriver,
  T0,
  thresholds,
  reported,
  LIMIT,
} from '../../../../test/support/memory-store-driver';

describe('sliding-window (memory store)', () => {
  const p = thresholds('sliding-window', 5, 10_000);
  let client: MemoryStoreDriver;
  beforeEach(() => {
    client = new MemoryStoreDriver();
  });
  afterEach(() => client.close());

  /** One request a second from T0. */
  async function oneASecond(count: number): Promise<void> {
    for (let i = 0; i < count; i++) await client.at(T0 + i * 1_000).hit(p);
  }

  it('admits `limit` in any interval of the window length, each reset a window away', async () => {
    const out = [];
    for (let i = 0; i < 5; i++) out.push(await client.at(T0 + i * 1_000).hit(p));
    expect(out).toEqual(
      [4, 3, 2, 1, 0].map((remaining) => ({
        ...reported(p),
        allowed: true,
        remaining,
        resetMs: 10_000,
        retryAfterMs: 0,
      })),
    );
  });

  it('rejects until the oldest request leaves the window, and resets when the newest does', async () => {
    await oneASecond(5);
    expect(await client.at(T0 + 5_000).hit(p)).toEqual({
      ...reported(p),
      ...LIMIT,
      remaining: 0,
      retryAfterMs: 5_000,
      resetMs: 9_000,
    });
    expect((await client.at(T0 + 9_999).hit(p)).allowed).toBe(false);
    expect(await client.at(T0 + 10_000).hit(p)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await client.hit(p)).toMatchObject({ ...LIMIT, retryAfterMs: 1_000 });
  });

  it('waits for as many requests to leave as a cost needs', async () => {
    await oneASecond(5);
    expect(await client.at(T0 + 5_000).hit(p, 2)).toMatchObject({ ...LIMIT, retryAfterMs: 6_000 });
    expect(await client.hit(p, 5)).toMatchObject({ ...LIMIT, retryAfterMs: 9_000 });
    // Two left by T0 + 11 s (T0 + 1 s is out: the window is T0 + 1 s excluded to T0 + 11 s).
    expect(await client.at(T0 + 11_000).hit(p, 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('does not charge a rejected request', async () => {
    await client.hits(p, 4);
    expect(await client.hit(p, 2)).toMatchObject({ ...LIMIT, remaining: 1, retryAfterMs: 10_000 });
    expect(await client.hit(p)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('peek reports the standing without charging; reset is when the newest request leaves', async () => {
    expect(await client.peek(p)).toEqual({
      ...reported(p),
      allowed: true,
      remaining: 5,
      resetMs: 0,
      retryAfterMs: 0,
    });
    await oneASecond(3);
    expect(await client.at(T0 + 2_500).peek(p)).toEqual({
      ...reported(p),
      allowed: true,
      remaining: 2,
      resetMs: 9_500,
      retryAfterMs: 0,
    });
    expect((await client.peek(p)).remaining).toBe(2);
  });

  it('keeps every request of one microsecond', async () => {
    const wide = thresholds('sliding-window', 100, 10_000);
    const out = await client.hits(wide, 101);
    expect(out[99]).toMatchObject({ allowed: true, remaining: 0 });
    expect(out[100]).toMatchObject({ ...LIMIT, retryAfterMs: 10_000 });
  });

  it('keeps the log in time order when a test clock goes back', async () => {
    await client.at(T0 + 5_000).hit(p);
    await client.at(T0).hit(p);
    await client.at(T0 + 5_000).hits(p, 3);
    // The oldest request (T0) leaves first, though it was added second.
    expect(await client.at(T0 + 6_000).hit(p)).toMatchObject({ ...LIMIT, retryAfterMs: 4_000 });
    expect(await client.at(T0 + 10_000).hit(p)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('holds only the requests still in the window', async () => {
    await oneASecond(5);
    await client.at(T0 + 12_500).hit(p);
    expect(client.store.keyspace.get<number[]>(client.key(p))).toHaveLength(3);
  });

  it('keeps the log one window after the newest request', async () => {
    await oneASecond(3);
    expect(client.pttl(p)).toBe(10_000);
    client.at(T0 + 12_000);
    expect(client.pttl(p)).toBe(-2);
  });

  describe('refund', () => {
    it('removes the requests it charged, not newer ones', async () => {
      const two = thresholds('sliding-window', 2, 10_000);
      await client.at(T0).hit(two);
      await client.at(T0 + 5_000).hit(two);
      await client.at(T0 + 5_001).refund(two, T0);
      expect((await client.at(T0 + 5_002).hit(two)).allowed).toBe(true);
      // T0 + 5 s and T0 + 5.002 s are both still in the window.
      expect((await client.at(T0 + 12_000).hit(two)).allowed).toBe(false);
    });

    it('removes as many requests as the cost, newest first', async () => {
      await client.hits(p, 2);
      await client.at(T0 + 1_000).hits(p, 3);
      await client.refund(p, T0 + 1_000, 2);
      expect((await client.peek(p)).remaining).toBe(2);
      await client.refund(p, T0, 5);
      expect((await client.peek(p)).remaining).toBe(4);
      await client.refund(p, T0 + 1_000, 1);
      expect((await client.peek(p)).remaining).toBe(5);
    });

    it('writes nothing for a client with nothing counted', async () => {
      await client.refund(p, T0);
      expect(client.pttl(p)).toBe(-2);
    });
  });

  it('keeps its timestamps across a change of window', async () => {
    await oneASecond(5);
    const minute = thresholds('sliding-window', 5, 60_000);
    expect(await client.at(T0 + 5_000).hit(minute)).toMatchObject({
      ...LIMIT,
      retryAfterMs: 55_000,
    });
  });
});
