import {
  MemoryStoreDriver,
  T0,
  thresholds,
  LIMIT,
} from '../../../../test/support/memory-store-driver';

describe('gcra (memory store)', () => {
  // An emission interval of 2 s, 5 at once from idle.
  const p = thresholds('gcra', 5, 10_000);
  let client: MemoryStoreDriver;
  beforeEach(() => {
    client = new MemoryStoreDriver();
  });
  afterEach(() => client.close());

  it('admits nothing even a millisecond early', async () => {
    await client.hits(p, 5);
    expect(await client.at(T0 + 1_999).hit(p)).toMatchObject({ ...LIMIT, retryAfterMs: 1 });
  });

  it('counts whole requests left when a cost does not fit', async () => {
    await client.hits(p, 4);
    expect(await client.hit(p, 2)).toMatchObject({ ...LIMIT, remaining: 1, retryAfterMs: 2_000 });
  });

  it('an interval of no whole microsecond (2 s / 3) admits the whole burst, remaining exact', async () => {
    const third = thresholds('gcra', 3, 2_000);
    const out = await client.hits(third, 4);
    expect(out.map((o) => [o.allowed, o.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(out[3].retryAfterMs).toBe(667);
    expect((await client.at(T0 + 667).hit(third)).allowed).toBe(true);
    const other = new MemoryStoreDriver('other');
    try {
      expect((await other.hit(third)).remaining).toBe(2);
      expect((await other.at(T0 + 1).hit(third)).remaining).toBe(1);
    } finally {
      other.close();
    }
  });

  it('an interval shorter than a microsecond still limits to the burst', async () => {
    const fast = thresholds('gcra', 100_000_000, 10_000);
    expect((await client.hit(fast, 99_999_995)).allowed).toBe(true);
    const out = await client.hits(fast, 7);
    expect(out.map((o) => o.allowed)).toEqual([true, true, true, true, true, false, false]);
  });

  it('at the bounds (1e9 per 1 ms, an interval of 1e-6 us) an idle client has `burst` left', async () => {
    expect((await client.peek(thresholds('gcra', 1_000_000_000, 1, { burst: 3 }))).remaining).toBe(
      3,
    );
  });

  it('stores an arrival time a hair under a whole microsecond as the whole one', async () => {
    // 19 intervals of 1 ms / 19 add up to 999.9999999999999 us: its fraction rounds up to 1.
    const nineteen = thresholds('gcra', 19, 1);
    expect((await client.hit(nineteen, 19)).allowed).toBe(true);
    // One interval (52.63 us) is free again after 52.63 us, not a microsecond earlier.
    expect(await client.at(T0 + 0.052).hit(nineteen)).toMatchObject({ ...LIMIT, retryAfterMs: 1 });
    expect((await client.at(T0 + 0.053).hit(nineteen)).allowed).toBe(true);
  });

  it('a theoretical arrival time past 2^53 us (a year per request) still limits', async () => {
    const yearly = thresholds('gcra', 1, 366 * 86_400_000, { burst: 1_000_000 });
    expect((await client.hit(yearly, 1_000_000)).allowed).toBe(true);
    expect(await client.hit(yearly)).toMatchObject(LIMIT);
    expect(await client.at(T0 + 86_400_000).peek(yearly)).toMatchObject({ remaining: 0 });
  });

  describe('refund', () => {
    it('moves the arrival time back by the cost', async () => {
      await client.hits(p, 3);
      await client.refund(p, T0);
      expect(await client.peek(p)).toMatchObject({ remaining: 3, resetMs: 4_000 });
      expect(client.pttl(p)).toBe(4_000);
    });

    it('to an idle client, holding nothing', async () => {
      await client.hit(p);
      await client.refund(p, T0, 3);
      expect((await client.peek(p)).remaining).toBe(5);
      expect(client.pttl(p)).toBe(-2);
    });

    it('of exactly what is ahead leaves nothing held', async () => {
      await client.hits(p, 2);
      await client.refund(p, T0, 2);
      expect(client.pttl(p)).toBe(-2);
    });
  });
});
