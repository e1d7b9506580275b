import {
  MemoryStoreDriver,
  T0,
  thresholds,
  reported,
  LIMIT,
} from '../../../../test/support/memory-store-driver';

const START = T0 - 1_000; // T0 is 1 s into a 10 s window
describe('fixed-window (memory store)', () => {
  const p = thresholds('fixed-window', 5, 10_000);
  let client: MemoryStoreDriver;
  beforeEach(() => {
    client = new MemoryStoreDriver();
  });
  afterEach(() => client.close());

  it('admits `limit` per window, then rejects until the window ends', async () => {
    const out = await client.hits(p, 6);
    expect(out.slice(0, 5)).toEqual(
      [4, 3, 2, 1, 0].map((remaining) => ({
        ...reported(p),
        allowed: true,
        remaining,
        resetMs: 9_000,
        retryAfterMs: 0,
      })),
    );
    expect(out[5]).toEqual({
      ...reported(p),
      ...LIMIT,
      remaining: 0,
      resetMs: 9_000,
      retryAfterMs: 9_000,
    });
    expect(await client.at(START + 9_999).hit(p)).toMatchObject({ ...LIMIT, retryAfterMs: 1 });
    expect(await client.at(START + 10_000).hit(p)).toEqual({
      ...reported(p),
      allowed: true,
      remaining: 4,
      resetMs: 10_000,
      retryAfterMs: 0,
    });
  });

  it('aligns windows to multiples of the window length', async () => {
    await client.at(START + 9_000).hits(p, 5);
    expect(await client.hit(p)).toMatchObject({ ...LIMIT, retryAfterMs: 1_000 });
    // The boundary admits a whole new window (the documented 2x burst).
    expect((await client.at(START + 10_000).hits(p, 5)).every((o) => o.allowed)).toBe(true);
  });

  it('charges `cost` units and does not charge a rejected request', async () => {
    expect(await client.hit(p, 3)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await client.hit(p, 3)).toMatchObject({ ...LIMIT, remaining: 2, retryAfterMs: 9_000 });
    expect(await client.hit(p, 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('peek reports the standing without charging', async () => {
    await client.hits(p, 2);
    expect(await client.peek(p)).toEqual({
      ...reported(p),
      allowed: true,
      remaining: 3,
      resetMs: 9_000,
      retryAfterMs: 0,
    });
    expect((await client.peek(p)).remaining).toBe(3);
  });

  it('keeps its count only until the window ends', async () => {
    expect(client.pttl(p)).toBe(-2);
    await client.hit(p);
    expect(client.pttl(p)).toBe(9_000);
    client.at(START + 10_000);
    expect(client.pttl(p)).toBe(-2);
  });

  it('writes nothing when another policy of the request rejects it', async () => {
    const narrow = thresholds('fixed-window', 1, 10_000, { name: 'narrow' });
    await client.hit(narrow);
    const reply = await client.run('consume', [p, narrow]);
    expect(reply.admitted).toBe(false);
    expect(reply.decisions[0]).toMatchObject({ allowed: true, remaining: 4 });
    expect(client.pttl(p)).toBe(-2);
  });

  it('starts a new window at its first microsecond, though the old key lives a little longer', async () => {
    // Expiry is in whole milliseconds: half a millisecond before the end, the key gets 1 ms.
    await client.at(START + 9_999.5).hits(p, 5);
    expect(client.at(START + 10_000).pttl(p)).toBe(0.5);
    expect(await client.hit(p)).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('counts nothing from a window that has ended', async () => {
    await client.at(START + 9_999.5).hits(p, 5);
    expect(await client.at(START + 10_000.25).peek(p)).toMatchObject({ remaining: 5 });
  });

  describe('refund', () => {
    it('gives back to the window that was charged', async () => {
      await client.hits(p, 3);
      await client.at(T0 + 1).refund(p, T0);
      expect((await client.peek(p)).remaining).toBe(3);
      expect(client.pttl(p)).toBe(8_999);
    });

    it('never gives back more than was counted', async () => {
      await client.hit(p);
      await client.refund(p, T0, 3);
      expect((await client.peek(p)).remaining).toBe(5);
    });

    it('leaves a new window alone when the charged one has ended', async () => {
      await client.at(START + 9_999).hit(p);
      await client.at(START + 10_000).hits(p, 2);
      await client.at(START + 10_001).refund(p, START + 9_999);
      expect((await client.peek(p)).remaining).toBe(3);
    });

    it('writes nothing for a client with nothing counted', async () => {
      await client.refund(p, T0);
      expect(client.pttl(p)).toBe(-2);
    });
  });

  describe('a change of window keeps the count', () => {
    const hour = thresholds('fixed-window', 5, 3_600_000);

    it('a longer window keeps an exhausted client rejected, and moves the expiry', async () => {
      await client.hits(p, 5);
      expect(await client.at(T0 + 1_000).peek(hour)).toMatchObject({ remaining: 0 });
      expect(client.pttl(p)).toBe(8_000); // a peek writes nothing
      expect(await client.hit(hour)).toMatchObject({ ...LIMIT, remaining: 0 });
      expect(client.pttl(hour)).toBe(3_600_000 - 2_000);
      expect((await client.at(START + 3_599_999).hit(hour)).allowed).toBe(false);
      expect(await client.at(START + 3_600_000).hit(hour)).toMatchObject({
        allowed: true,
        remaining: 4,
      });
    });

    it('a shorter window frees the client when the new window ends', async () => {
      await client.hits(hour, 5);
      expect(await client.at(T0 + 1_000).hit(p)).toMatchObject({ ...LIMIT, retryAfterMs: 8_000 });
      expect(client.pttl(p)).toBe(8_000);
      expect(await client.at(START + 10_000).hit(p)).toMatchObject({
        allowed: true,
        remaining: 4,
      });
    });

    it('moves an admitted count with its charge', async () => {
      await client.hits(p, 2);
      expect(await client.at(T0 + 1_000).hit(hour)).toMatchObject({ remaining: 2 });
      expect(client.pttl(hour)).toBe(3_600_000 - 2_000);
    });

    it('a refund after the change gives back to the moved count', async () => {
      await client.hits(p, 3);
      await client.at(T0 + 1).refund(hour, T0);
      expect((await client.peek(hour)).remaining).toBe(3);
    });

    it('a new limit with the same window keeps the count', async () => {
      await client.hits(p, 5);
      const wider = thresholds('fixed-window', 8, 10_000);
      expect(await client.at(T0 + 1_000).hit(wider)).toMatchObject({
        allowed: true,
        remaining: 2,
      });
    });
  });
});
