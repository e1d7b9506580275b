import {
  MemoryStoreDriver,
  T0,
  thresholds,
  reported,
  LIMIT,
} from '../../../../test/support/memory-store-driver';

const START = T0 - 1_000; // T0 is 1 s into a window of every length used here
const HOUR = 3_600_000;
describe('sliding-window-counter (memory store)', () => {
  const p = thresholds('sliding-window-counter', 5, 10_000);
  let client: MemoryStoreDriver;
  beforeEach(() => {
    client = new MemoryStoreDriver();
  });
  afterEach(() => client.close());

  it('admits `limit` in a window; a count weighs until the next window ends', async () => {
    const out = await client.hits(p, 6);
    expect(out.slice(0, 5)).toEqual(
      [4, 3, 2, 1, 0].map((remaining) => ({
        ...reported(p),
        allowed: true,
        remaining,
        resetMs: 19_000,
        retryAfterMs: 0,
      })),
    );
    // Admitted again once the 5 weigh 4 (0.8 of them): 2 s into the next window.
    expect(out[5]).toEqual({
      ...reported(p),
      ...LIMIT,
      remaining: 0,
      retryAfterMs: 11_000,
      resetMs: 19_000,
    });
    expect((await client.at(START + 11_999).hit(p)).allowed).toBe(false);
    expect(await client.at(START + 12_000).hit(p)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('weighs the last window whole at the first moment of the next', async () => {
    await client.hits(p, 5);
    expect(await client.at(START + 10_000).hit(p)).toMatchObject({
      ...LIMIT,
      retryAfterMs: 2_000,
      resetMs: 10_000,
    });
  });

  it('weights the previous window by its overlap', async () => {
    await client.at(START + 2_000).hits(p, 5);
    // Half-way through the next window the previous 5 weigh 2.5.
    const out = await client.at(START + 15_000).hits(p, 3);
    expect(out.map((o) => [o.allowed, o.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(out[2]).toMatchObject({ retryAfterMs: 1_000, resetMs: 15_000 });
    expect((await client.at(START + 15_999).hit(p)).allowed).toBe(false);
    expect((await client.at(START + 16_000).hit(p)).allowed).toBe(true);
  });

  it('peek reports the standing without charging', async () => {
    expect(await client.peek(p)).toEqual({
      ...reported(p),
      allowed: true,
      remaining: 5,
      resetMs: 0,
      retryAfterMs: 0,
    });
    await client.at(START + 2_000).hits(p, 5);
    // Only the previous window weighs: reset when it stops weighing.
    expect(await client.at(START + 15_000).peek(p)).toEqual({
      ...reported(p),
      allowed: true,
      remaining: 2,
      resetMs: 5_000,
      retryAfterMs: 0,
    });
    expect((await client.peek(p)).remaining).toBe(2);
    expect(await client.at(START + 20_000).peek(p)).toMatchObject({ remaining: 5, resetMs: 0 });
  });

  it('charges `cost` units and does not charge a rejected request', async () => {
    expect(await client.hit(p, 3)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await client.hit(p, 3)).toMatchObject({ ...LIMIT, remaining: 2 });
    expect(await client.hit(p, 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('waits for enough of both windows to stop weighing for a cost', async () => {
    await client.at(START + 2_000).hits(p, 4);
    // 4 previous weigh 2, so 3 fit: a cost of 4 waits until they weigh 1 (7.5 s in).
    expect(await client.at(START + 15_000).hit(p, 4)).toMatchObject({
      ...LIMIT,
      remaining: 3,
      retryAfterMs: 2_500,
    });
    expect((await client.at(START + 17_500).hit(p, 4)).allowed).toBe(true);
  });

  it('keeps its counts as long as they weigh', async () => {
    await client.hit(p);
    expect(client.pttl(p)).toBe(19_000);
    client.at(START + 20_000);
    expect(client.pttl(p)).toBe(-2);
  });

  describe('refund', () => {
    it('gives back to the current window', async () => {
      await client.hits(p, 3);
      await client.at(T0 + 1).refund(p, T0);
      expect((await client.peek(p)).remaining).toBe(3);
      expect(client.pttl(p)).toBe(18_999);
    });

    it('after the rollover, gives back to the previous window', async () => {
      const ten = thresholds('sliding-window-counter', 10, 10_000);
      await client.at(START + 9_999).hits(ten, 6);
      await client.at(START + 10_001).hits(ten, 2);
      await client.at(START + 10_002).refund(ten, START + 9_999);
      // 2 s in: 5 of the previous window weigh 4, plus 2 in this one: 6 used (6.8 without it).
      expect(await client.at(START + 12_000).peek(ten)).toMatchObject({ remaining: 4 });
      expect(await client.at(START + 15_000).hit(ten)).toMatchObject({
        allowed: true,
        remaining: 4,
      });
    });

    it('gives nothing back to a window that no longer weighs', async () => {
      await client.at(START + 9_999).hits(p, 2);
      await client.at(START + 20_001).hits(p, 2);
      await client.refund(p, START + 9_999);
      expect((await client.peek(p)).remaining).toBe(3);
    });

    it('gives nothing back to the window before the previous one', async () => {
      const ten = thresholds('sliding-window-counter', 10, 10_000);
      await client.at(START + 9_999).hits(ten, 2);
      await client.at(START + 10_001).hits(ten, 3);
      await client.at(START + 20_001).hit(ten);
      await client.at(START + 20_002).refund(ten, START + 9_999, 2);
      // Half-way: the previous 3 weigh 1.5, plus 1: 2.5 used.
      expect(await client.at(START + 25_000).peek(ten)).toMatchObject({ remaining: 7 });
    });

    it('keeps an emptied state until it expires, as lua/sliding-window-counter.lua (KEEPTTL)', async () => {
      await client.hit(p);
      await client.at(T0 + 1).refund(p, T0);
      expect(await client.peek(p)).toMatchObject({ remaining: 5, resetMs: 0 });
      expect(client.pttl(p)).toBe(18_999);
      // A request another policy rejects is not charged and leaves that state alone.
      const narrow = thresholds('fixed-window', 1, 10_000, { name: 'narrow' });
      await client.hit(narrow);
      expect((await client.run('consume', [p, narrow])).admitted).toBe(false);
      expect(client.pttl(p)).toBe(18_999);
    });

    it('never gives back more than was counted', async () => {
      await client.hit(p);
      await client.refund(p, T0, 3);
      expect((await client.peek(p)).remaining).toBe(5);
      await client.at(START + 10_000).hit(p);
      await client.at(START + 10_001).refund(p, T0, 3);
      expect((await client.peek(p)).remaining).toBe(4);
    });

    it('writes nothing for a client with nothing counted', async () => {
      await client.refund(p, T0);
      expect(client.pttl(p)).toBe(-2);
    });
  });

  describe('a change of window keeps the counts', () => {
    const hour = thresholds('sliding-window-counter', 5, HOUR);

    it('a longer window keeps an exhausted client rejected, and moves the expiry', async () => {
      await client.hits(p, 5);
      expect(await client.at(T0 + 1_000).peek(hour)).toMatchObject({ remaining: 0 });
      expect(client.pttl(p)).toBe(18_000); // a peek writes nothing
      expect(await client.hit(hour)).toMatchObject({ ...LIMIT, remaining: 0 });
      expect(client.pttl(hour)).toBe(2 * HOUR - 2_000);
      expect((await client.at(START + 30_000).hit(hour)).allowed).toBe(false);
      expect((await client.at(START + HOUR - 1).hit(hour)).allowed).toBe(false);
      expect(await client.at(START + 2 * HOUR).hit(hour)).toMatchObject({
        allowed: true,
        remaining: 4,
      });
    });

    it('a shorter window re-tightens the expiry; the count then weighs one window more', async () => {
      await client.hits(hour, 5);
      expect(await client.at(T0 + 1_000).hit(p)).toMatchObject(LIMIT);
      expect(client.pttl(p)).toBe(18_000);
      expect((await client.at(START + 10_000).hit(p)).allowed).toBe(false);
      expect((await client.at(START + 12_000).peek(p)).remaining).toBe(1);
      expect(await client.at(START + 20_000).hit(p)).toMatchObject({
        allowed: true,
        remaining: 4,
      });
    });

    it('a count stays with the time it was counted in', async () => {
      const ten = thresholds('sliding-window-counter', 10, 10_000);
      const tenAnHour = thresholds('sliding-window-counter', 10, HOUR);
      // A 10 s window that ended 2 s ago lies in the current hour: all of it counts there.
      await client.hits(ten, 10);
      expect((await client.at(START + 12_000).peek(ten)).remaining).toBe(2);
      expect(await client.hit(tenAnHour)).toMatchObject({ ...LIMIT, remaining: 0 });
      // The previous hour ended 5 minutes ago, long before the current 10 s window.
      const other = new MemoryStoreDriver('other');
      try {
        await other.hits(tenAnHour, 5);
        expect(await other.at(START + HOUR + 300_000).hit(tenAnHour)).toMatchObject({
          remaining: 4,
        });
        expect(await other.at(START + HOUR + 301_000).hit(ten)).toMatchObject({ remaining: 8 });
      } finally {
        other.close();
      }
    });

    it('a shorter window places an ended long window where its last moment falls', async () => {
      await client.at(START + HOUR - 500).hits(hour, 3);
      // The hour ended as the current 10 s window began: its 3 weigh as the previous window's.
      expect((await client.at(START + HOUR + 500).peek(p)).remaining).toBe(2);
      expect((await client.at(START + HOUR + 5_000).peek(p)).remaining).toBe(3);
      // A window later they no longer weigh.
      expect((await client.at(START + HOUR + 15_000).peek(p)).remaining).toBe(5);
    });

    it('a longer window adds the previous short window that lies in it', async () => {
      const ten = thresholds('sliding-window-counter', 10, 10_000);
      const tenAnHour = thresholds('sliding-window-counter', 10, HOUR);
      await client.hits(ten, 4);
      await client.at(START + 10_500).hits(ten, 3);
      // Under 10 s the previous 4 weigh 2 half-way; under the hour both windows count whole.
      expect((await client.at(START + 15_000).peek(ten)).remaining).toBe(5);
      expect((await client.peek(tenAnHour)).remaining).toBe(3);
    });

    it('an uncharged request moves a count that only weighs as the previous window', async () => {
      await client.at(START + HOUR - 500).hits(hour, 5);
      // 500 ms into the next 10 s window the hour's 5 weigh 4.75: one more does not fit.
      expect(await client.at(START + HOUR + 500).hit(p)).toMatchObject(LIMIT);
      expect(client.pttl(p)).toBe(9_500);
    });

    it('a refund of the whole count after a change of window holds nothing', async () => {
      await client.hit(p);
      await client.at(T0 + 1).refund(hour, T0);
      expect(client.pttl(p)).toBe(-2);
    });

    it('a refund the current window cannot see leaves the state to the old window', async () => {
      await client.at(START + HOUR - 500).hits(hour, 3);
      await client.at(START + HOUR + 15_000).refund(p, START + HOUR - 500);
      // Back under the hour, its 3 still weigh (almost whole) as the previous hour's.
      expect((await client.peek(hour)).remaining).toBe(2);
    });

    it('counts nothing from a window that stopped weighing, though its key lives a little longer', async () => {
      await client.at(T0 + 0.5).hit(p);
      expect(client.at(START + 20_000).pttl(p)).toBe(0.5);
      expect((await client.peek(hour)).remaining).toBe(5);
      expect((await client.peek(p)).remaining).toBe(5);
    });

    it('a new limit with the same window keeps the count', async () => {
      await client.hits(p, 5);
      const wider = thresholds('sliding-window-counter', 8, 10_000);
      expect(await client.at(T0 + 1_000).hit(wider)).toMatchObject({
        allowed: true,
        remaining: 2,
      });
      expect(await client.at(START + 20_000).hit(p)).toMatchObject({
        allowed: true,
        remaining: 4,
      });
    });

    it('a refund after the change gives back to the moved count', async () => {
      await client.hits(p, 3);
      await client.at(T0 + 1).refund(hour, T0);
      expect((await client.at(T0 + 2).peek(hour)).remaining).toBe(3);
      expect(client.pttl(hour)).toBeGreaterThan(19_000);
      await client.at(T0 + 3).hit(hour);
      await client.at(T0 + 4).refund(p, T0 + 3);
      expect((await client.at(T0 + 5).peek(p)).remaining).toBe(3);
      expect(client.pttl(p)).toBeLessThanOrEqual(19_000);
    });
  });
});
