import type { RateLimitDecision } from '../src/decision/rate-limit-decision.interface';
import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from '../src/policy/rate-limit-algorithm';
import {
  Client,
  T0,
  memoryFactory,
  policy,
  redisFactory,
  type StoreFactory,
  type StoreUnderTest,
} from './support/store-harness';
import { seededRandom } from './support/seeded-random';

/**
 * One suite, two stores: every expectation below must hold for Redis (Lua) and for the
 * in-memory store alike. Time is explicit (`now`) wherever it matters.
 */
const factories: StoreFactory[] = [redisFactory(), redisFactory('scripts'), memoryFactory()];
const BUCKETS: RateLimitAlgorithm[] = ['token-bucket', 'leaky-bucket', 'gcra'];

describe.each(factories)('conformance: $name store', (factory) => {
  let sut: StoreUnderTest;
  let client: Client;

  beforeAll(() => factory.setup());
  afterAll(() => factory.teardown());
  beforeEach(async () => {
    sut = await factory.create();
    client = new Client(sut, 'ip:198.51.100.7');
  });

  async function hits(p: ReturnType<typeof policy>, nowMs: number, count: number) {
    const out = [];
    for (let i = 0; i < count; i++) out.push(await client.hit(p, nowMs));
    return out;
  }

  describe.each(RATE_LIMIT_ALGORITHMS)('%s', (algo) => {
    const p = policy({ algo, limit: 5, window: 10_000 });

    it('admits exactly `limit` at once with remaining 4..0, then rejects with a retry time', async () => {
      const out = await hits(p, T0, 7);
      expect(out.map((o) => o.allowed)).toEqual([true, true, true, true, true, false, false]);
      expect(out.slice(0, 5).map((o) => o.remaining)).toEqual([4, 3, 2, 1, 0]);
      expect(out[5]).toMatchObject({ remaining: 0, reason: 'limit' });
      expect(out[5].retryAfterMs).toBeGreaterThan(0);
      expect(out.slice(0, 5).every((o) => o.retryAfterMs === 0 && o.reason === undefined)).toBe(
        true,
      );
      // The request as a whole (what decides the refund of a request's other groups).
      expect((await client.run('consume', [p], T0)).admitted).toBe(false);
    });

    it('does not charge rejected requests: after the retry time exactly one more passes', async () => {
      await hits(p, T0, 5);
      const rejected = await hits(p, T0 + 1, 20);
      expect(rejected.every((o) => !o.allowed)).toBe(true);
      const retryAt = T0 + 1 + rejected[0].retryAfterMs;
      expect((await client.hit(p, retryAt - 1)).allowed).toBe(false);
      expect((await client.hit(p, retryAt)).allowed).toBe(true);
    });

    it('rejects a cost above capacity with its own reason and charges nothing', async () => {
      const out = await client.hit(p, T0, 6);
      // Nothing stored, so nothing to wait for; a fixed window resets when it ends (T0 is 1 s
      // into a 10 s window), whatever it holds.
      const resetMs = algo === 'fixed-window' ? 9_000 : 0;
      expect(out).toMatchObject({
        allowed: false,
        reason: 'cost-exceeds-capacity',
        retryAfterMs: 0,
        resetMs,
      });
      // Not even an empty count of the window written.
      expect(await sut.keyCount()).toBe(0);
      expect((await hits(p, T0, 5)).every((o) => o.allowed)).toBe(true);
    });

    it('a limit lowered under what a client holds leaves it 0, not a negative or 1', async () => {
      await hits(p, T0, 5);
      const lowered = policy({ algo, limit: 2, window: 10_000 });
      expect(await client.hit(lowered, T0 + 1)).toMatchObject({ allowed: false, remaining: 0 });
      expect(await client.peek(lowered, T0 + 1)).toMatchObject({ remaining: 0 });
    });

    it('a limit of 1: the next request waits for the first to count no more', async () => {
      const one = policy({ algo, limit: 1, window: 10_000 });
      const at = T0 + 2_000; // not on a fixed window's boundary (T0 is)
      expect(await client.hit(one, at)).toMatchObject({ allowed: true, remaining: 0 });
      const second = await client.hit(one, at + 1_000);
      expect(second).toMatchObject({ allowed: false, remaining: 0, reason: 'limit' });
      expect(second.retryAfterMs).toBeGreaterThan(0);
      // The counter weighs the previous window's count through the next one: limit 1 waits
      // for the window after (19 s), the others for the first request's window or its refill.
      expect(second.retryAfterMs).toBeLessThanOrEqual(
        algo === 'sliding-window-counter' ? 16_000 : 9_000,
      );
      expect(second.resetMs).toBeGreaterThanOrEqual(second.retryAfterMs);
      expect((await client.hit(one, at + 1_000 + second.retryAfterMs)).allowed).toBe(true);
    });

    it('charges `cost` units', async () => {
      expect(await client.hit(p, T0, 3)).toMatchObject({ allowed: true, remaining: 2 });
      expect(await client.hit(p, T0, 3)).toMatchObject({ allowed: false, remaining: 2 });
      expect(await client.hit(p, T0, 2)).toMatchObject({ allowed: true, remaining: 0 });
    });

    it('peek of a client never seen: everything left, nothing to wait for; after a hit, when', async () => {
      const at = T0 + 2_000;
      const fresh = await client.peek(p, at);
      expect(fresh).toMatchObject({ allowed: true, remaining: 5, retryAfterMs: 0 });
      expect(fresh.resetMs).toBe(algo === 'fixed-window' ? 7_000 : 0);
      await client.hit(p, at);
      const after = await client.peek(p, at + 1_000);
      expect(after).toMatchObject({ allowed: true, remaining: 4, retryAfterMs: 0 });
      // Until the hit counts no more: its window's end (fixed), its leaving the log (sliding),
      // the next window's end (the counter weighs it there too), its unit refilled (2 s each).
      const resetMs: Record<RateLimitAlgorithm, number> = {
        'fixed-window': 6_000,
        'sliding-window': 9_000,
        'sliding-window-counter': 16_000,
        'token-bucket': 1_000,
        'leaky-bucket': 1_000,
        gcra: 1_000,
      };
      expect(after.resetMs).toBe(resetMs[algo]);
    });

    it('peek reports the standing without charging', async () => {
      await hits(p, T0, 2);
      expect(await client.peek(p, T0)).toMatchObject({ allowed: true, remaining: 3 });
      expect(await client.peek(p, T0)).toMatchObject({ allowed: true, remaining: 3 });
      expect((await client.hit(p, T0)).remaining).toBe(2);
    });

    it('blockFor keeps rejecting after the limit would admit again, then lifts', async () => {
      const blocking = policy({ algo, limit: 2, window: 1_000, blockFor: 30_000 });
      await hits(blocking, T0, 2);
      const tripped = await client.hit(blocking, T0);
      expect(tripped).toMatchObject({ allowed: false, reason: 'limit', retryAfterMs: 30_000 });
      expect(await client.hit(blocking, T0 + 5_000)).toMatchObject({
        allowed: false,
        reason: 'blocked',
        retryAfterMs: 25_000,
      });
      expect((await client.hit(blocking, T0 + 30_000)).allowed).toBe(true);
    });

    it('shadow mode reports the rejection but admits the request and charges nothing more', async () => {
      const shadow = policy({ algo, limit: 2, window: 10_000, mode: 'shadow' });
      await hits(shadow, T0, 2);
      const reply = await client.run('consume', [shadow], T0);
      expect(reply.admitted).toBe(true);
      expect(reply.decisions[0]).toMatchObject({ allowed: false, reason: 'limit' });
      expect((await client.peek(shadow, T0)).remaining).toBe(0);
    });

    it('all-or-nothing: when one policy rejects, the other is not charged', async () => {
      const wide = policy({ algo, limit: 5, window: 10_000 }, 'wide');
      const narrow = policy({ algo: 'fixed-window', limit: 1, window: 10_000 }, 'narrow');
      expect((await client.run('consume', [wide, narrow], T0)).admitted).toBe(true);
      const second = await client.run('consume', [wide, narrow], T0);
      expect(second.admitted).toBe(false);
      expect(second.decisions.map((o) => o.allowed)).toEqual([true, false]);
      expect((await client.peek(wide, T0)).remaining).toBe(4);
    });

    it('keeps identities apart', async () => {
      await hits(p, T0, 5);
      const other = new Client(sut, 'ip:198.51.100.8');
      expect((await other.hit(p, T0)).remaining).toBe(4);
    });

    it('sets a TTL no longer than needed and holds nothing once the window has passed', async () => {
      const short = policy({ algo, limit: 3, window: 150 });
      // The counter approximation weighs this window's count during the next one too.
      const neededMs = algo === 'sliding-window-counter' ? 300 : 150;
      // GCRA's TAT is in microseconds, and on Redis time its key expires at the first whole ms
      // at or after it (PXAT: lua/gcra.lua); PTTL counts from the current ms rounded down. A
      // TAT 150 ms after a first hit at 1000.9 ms expires at 1151, which PTTL at 1000.95 reads
      // as 151: the whole-ms expiry nearest the state's end, not a longer one.
      const expiryRoundingMs = algo === 'gcra' ? 1 : 0;
      for (let i = 0; i < 3; i++) await client.hit(short);
      const key = client.entry(short).key;
      const ttl = await sut.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(neededMs + expiryRoundingMs);
      await new Promise((resolve) => setTimeout(resolve, neededMs + 50));
      expect(await sut.keyCount()).toBe(0);
    });
  });

  describe('algorithm specifics', () => {
    it('blockFor holds in a request of several policies, and its neighbour is read aright', async () => {
      // The penalised policy first: its block key comes before the next entry's keys.
      const blocking = policy(
        { algo: 'fixed-window', limit: 2, window: 1_000, blockFor: 30_000 },
        'blk',
      );
      const next = policy({ algo: 'gcra', limit: 3, window: 60_000 }, 'blk-next');
      const run = (nowMs: number) => client.run('consume', [blocking, next], nowMs);
      for (let i = 0; i < 2; i++) expect((await run(T0)).admitted).toBe(true);
      const tripped = await run(T0);
      expect(tripped.decisions[0]).toMatchObject({
        allowed: false,
        reason: 'limit',
        retryAfterMs: 30_000,
      });
      const later = await run(T0 + 5_000);
      expect(later.decisions[0]).toMatchObject({
        allowed: false,
        reason: 'blocked',
        remaining: 0,
        resetMs: 25_000,
        retryAfterMs: 25_000,
      });
      // Charged twice (the refused requests charged nothing), 5 s refilled a quarter unit.
      expect((await client.peek(next, T0 + 5_000)).remaining).toBe(1);
    });

    it('decides a request of 18 stacked policies, the 18th as the 1st', async () => {
      // Entries take 17 slots each in the script: a loop bound off by one slot per entry shows
      // from the 18th entry on.
      const stack = Array.from({ length: 18 }, (_, i) =>
        policy({ algo: 'fixed-window', limit: 10 + i, window: 10_000 }, `stack18-${i}`),
      );
      const first = await client.run('consume', stack, T0);
      expect(first.admitted).toBe(true);
      expect(first.decisions.map((o) => o.remaining)).toEqual(stack.map((p) => p.limit - 1));
      const second = await client.run('consume', stack, T0);
      expect(second.decisions.map((o) => o.remaining)).toEqual(stack.map((p) => p.limit - 2));
      const entries = stack.map((p) => client.entry(p));
      await sut.store.decide('refund', entries, T0 * 1_000, T0 * 1_000);
      expect((await client.peek(stack[17], T0)).remaining).toBe(stack[17].limit - 1);
    });

    it("a cost above one stacked policy's capacity gives no retry time", async () => {
      const small = policy({ algo: 'fixed-window', limit: 5, window: 10_000 }, 'cap-small');
      const large = policy({ algo: 'fixed-window', limit: 50, window: 10_000 }, 'cap-large');
      const reply = await client.run('consume', [small, large], T0, 6);
      expect(reply.admitted).toBe(false);
      expect(reply.decisions[0]).toMatchObject({
        allowed: false,
        reason: 'cost-exceeds-capacity',
        retryAfterMs: 0,
      });
    });

    it("stacked buckets: each policy decides on its own burst, whatever its neighbour's", async () => {
      // The second policy's limit is the first one's burst: a reader that took its burst from
      // the wrong argument would see limit == burst and decide it on a burst of 10, not 20.
      const first = policy({ algo: 'token-bucket', limit: 5, window: 10_000, burst: 10 }, 'tb-1');
      const second = policy({ algo: 'gcra', limit: 10, window: 10_000, burst: 20 }, 'tb-2');
      const reply = await client.run('consume', [first, second], T0);
      expect(reply.decisions.map((o) => o.remaining)).toEqual([9, 19]);
    });

    it('fixed-window: windows align to the epoch; the boundary admits 2x (documented)', async () => {
      const p = policy({ algo: 'fixed-window', limit: 5, window: 10_000 });
      const end = T0 - 1_000 + 10_000; // T0 is 1 s into a window
      // 500 ms before the boundary: keys expire in real time, so an explicit `now` stays clear
      // of TTLs shorter than the test itself.
      const before = await hits(p, end - 500, 5);
      expect(before[4]).toMatchObject({ allowed: true, resetMs: 500 });
      expect((await client.hit(p, end - 500)).retryAfterMs).toBe(500);
      expect((await hits(p, end, 5)).every((o) => o.allowed)).toBe(true);
    });

    it('sliding-window: a cost of more members than one command adds is charged and refunded in full', async () => {
      // Redis adds and removes members 1,000 at a time.
      const p = policy({ algo: 'sliding-window', limit: 2_500, window: 10_000 });
      expect(await client.hit(p, T0, 1_001)).toMatchObject({ allowed: true, remaining: 1_499 });
      expect(await client.hit(p, T0 + 1, 1_001)).toMatchObject({ allowed: true, remaining: 498 });
      expect((await client.peek(p, T0 + 2)).remaining).toBe(498);
      await client.refund(p, T0 + 3, T0 + 1, 1_001);
      expect((await client.peek(p, T0 + 4)).remaining).toBe(1_499);
      await client.refund(p, T0 + 5, T0, 1_001);
      expect((await client.peek(p, T0 + 6)).remaining).toBe(2_500);
    });

    it('sliding-window-counter: at the instant a window ends, its count weighs as the previous one', async () => {
      const p = policy({ algo: 'sliding-window-counter', limit: 5, window: 10_000 });
      await hits(p, T0, 3);
      const end = T0 - 1_000 + 10_000; // T0 is 1 s into its window
      // Fully weighted still (nothing of the new window has elapsed), and gone when it ends.
      expect(await client.peek(p, end)).toMatchObject({ remaining: 2, resetMs: 10_000 });
      expect(await client.peek(p, end - 1)).toMatchObject({ remaining: 2, resetMs: 10_001 });
    });

    it('sliding-window-counter: the previous count alone sets the reset; an older charge refunds nothing', async () => {
      const p = policy({ algo: 'sliding-window-counter', limit: 5, window: 10_000 });
      await client.hit(p, T0);
      // One window on (1 s into it): the hit is the previous count, weighing until this one ends.
      expect(await client.peek(p, T0 + 10_000)).toMatchObject({ remaining: 4, resetMs: 9_000 });
      await client.hit(p, T0 + 10_000);
      await client.hit(p, T0 + 20_000);
      const before = await client.peek(p, T0 + 20_000);
      // The first hit's window is two back, no longer in force: its refund changes nothing.
      await client.refund(p, T0 + 20_000, T0);
      expect(await client.peek(p, T0 + 20_000)).toEqual(before);
    });

    it("sliding-window-counter: a refund of the previous window's charge gives it back, down to 0", async () => {
      const p = policy({ algo: 'sliding-window-counter', limit: 5, window: 10_000 });
      await client.hit(p, T0);
      // Stored one window on: 1 now, 1 before (weight 0.9 here, 1 s in).
      await client.hit(p, T0 + 10_000);
      expect((await client.peek(p, T0 + 10_000)).remaining).toBe(3);
      // More than it holds (a cost of 2 against a count of 1): the count stops at 0.
      await client.refund(p, T0 + 10_000, T0, 2);
      expect((await client.peek(p, T0 + 10_000)).remaining).toBe(4);
      expect((await client.hit(p, T0 + 10_000, 4)).allowed).toBe(true);
    });

    it('sliding-window: never more than `limit` in any interval of the window length', async () => {
      const p = policy({ algo: 'sliding-window', limit: 5, window: 10_000 });
      await hits(p, T0, 5);
      expect(await client.hit(p, T0 + 5_000)).toMatchObject({
        allowed: false,
        retryAfterMs: 5_000,
        resetMs: 5_000,
      });
      expect((await client.hit(p, T0 + 9_999)).allowed).toBe(false);
      expect((await hits(p, T0 + 10_000, 6)).map((o) => o.allowed)).toEqual([
        true,
        true,
        true,
        true,
        true,
        false,
      ]);
    });

    it('sliding-window: members stay unique within one microsecond', async () => {
      const p = policy({ algo: 'sliding-window', limit: 100, window: 10_000 });
      const out = await hits(p, T0, 100);
      expect(out.at(-1)).toMatchObject({ allowed: true, remaining: 0 });
      expect((await client.peek(p, T0)).remaining).toBe(0);
    });

    it('sliding-window-counter: weights the previous window by its overlap', async () => {
      const p = policy({ algo: 'sliding-window-counter', limit: 5, window: 10_000 });
      const start = T0 - 1_000;
      await hits(p, start + 2_000, 5);
      const next = start + 10_000 + 5_000; // previous 5 weighted 0.5 -> 2.5 used
      const out = await hits(p, next, 3);
      expect(out.map((o) => o.allowed)).toEqual([true, true, false]);
      expect(out[2].retryAfterMs).toBe(1_000);
      expect((await client.hit(p, next + 1_000)).allowed).toBe(true);
    });

    it.each(BUCKETS)('%s: refills/leaks `limit` per window, continuously', async (algo) => {
      const p = policy({ algo, limit: 5, window: 10_000 });
      await hits(p, T0, 5);
      expect(await client.hit(p, T0)).toMatchObject({ allowed: false, retryAfterMs: 2_000 });
      expect(await client.hit(p, T0 + 2_000)).toMatchObject({ allowed: true, remaining: 0 });
      expect((await client.hit(p, T0 + 2_000)).allowed).toBe(false);
      expect((await client.peek(p, T0 + 12_000)).remaining).toBe(5);
    });

    it.each(BUCKETS)(
      '%s: burst above limit allows a larger first burst at the same rate',
      async (algo) => {
        const p = policy({ algo, limit: 1, window: 1_000, burst: 10 });
        const out = await hits(p, T0, 11);
        expect(out.filter((o) => o.allowed)).toHaveLength(10);
        expect(out[10].retryAfterMs).toBe(1_000);
        expect(out[0].remaining).toBe(9);
      },
    );

    it.each(BUCKETS)(
      '%s: a unit shorter than a microsecond still gets a valid expiry',
      async (algo) => {
        // 1e9 per second: one unit is 1 ns, so "until full" rounds to 0 ms; Redis refuses PX 0.
        const fast = policy({ algo, limit: 1_000_000_000, window: 1_000 });
        const out = await hits(fast, T0, 3);
        expect(out.map((o) => o.allowed)).toEqual([true, true, true]);
      },
    );

    it('gcra: an interval of no whole microsecond (2 s / 3) admits the whole burst, remaining exact', async () => {
      const p = policy({ algo: 'gcra', limit: 3, window: 2_000 });
      const out = await hits(p, T0, 4);
      expect(out.map((o) => [o.allowed, o.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
      expect(out[3].retryAfterMs).toBe(667);
      expect((await client.hit(p, T0 + 667)).allowed).toBe(true);
      // Later requests too: one interval after a lone request, the burst is whole again.
      const other = new Client(sut, 'ip:198.51.100.9');
      expect((await other.hit(p, T0)).remaining).toBe(2);
      expect((await other.hit(p, T0 + 1)).remaining).toBe(1);
    });

    it('gcra: an interval shorter than a microsecond still limits to the burst', async () => {
      // 0.1 us per unit. One costly request fills all but 5 units of the 10 s burst (so the key
      // outlives the test in Redis's own clock), then single units fill the rest.
      const p = policy({ algo: 'gcra', limit: 100_000_000, window: 10_000 });
      expect((await client.hit(p, T0, 99_999_995)).allowed).toBe(true);
      const out = await hits(p, T0, 7);
      expect(out.map((o) => o.allowed)).toEqual([true, true, true, true, true, false, false]);
    });

    it('gcra: at the bounds (1e9 per 1 ms, an interval of 1e-6 us) an idle client has `burst` left', async () => {
      // Only the idle standing: any state would expire after 1 ms of Redis's own clock.
      const p = policy({ algo: 'gcra', limit: 1_000_000_000, window: 1, burst: 3 });
      expect((await client.peek(p, T0)).remaining).toBe(3);
    });

    it('gcra: a TAT past 2^53 us (a year per unit, a burst of 1e6) still limits', async () => {
      const p = policy({ algo: 'gcra', limit: 1, window: '366d', burst: 1_000_000 });
      expect((await client.hit(p, T0, 1_000_000)).allowed).toBe(true);
      expect(await client.hit(p, T0)).toMatchObject({ allowed: false, reason: 'limit' });
    });

    it('a refusal whose wait is under a microsecond still says retry after 1 ms', async () => {
      const p = policy({ algo: 'token-bucket', limit: 3, window: 1_000, burst: 1 });
      await client.hit(p, T0);
      // 333.333 ms later the bucket holds 0.999999 of a token: 0.33 us short of one.
      const out = await client.hit(p, T0 + 333.333);
      expect(out).toMatchObject({ allowed: false, reason: 'limit' });
      expect(out.retryAfterMs).toBe(1);
      expect(out.resetMs).toBeGreaterThanOrEqual(1);
    });

    it.each(['token-bucket', 'leaky-bucket'] as const)(
      '%s: one microsecond at 1e9 per 10 s frees 100 units',
      async (algo) => {
        // 100 per us: a bucket emptied (filled) at T0 frees 100 units 1 us later. Not a 1 ms
        // window: its key would live 1 ms of real time, and these calls are on a test clock.
        const p = policy({ algo, limit: 1_000_000_000, window: 10_000 });
        expect((await client.hit(p, T0, 1_000_000_000)).allowed).toBe(true);
        expect((await client.hit(p, T0)).allowed).toBe(false);
        expect(await client.hit(p, T0 + 0.001)).toMatchObject({
          allowed: true,
          remaining: 99,
        });
      },
    );

    it('token-bucket: a lowered capacity clamps the tokens kept; a raised limit keeps them', async () => {
      await hits(policy({ algo: 'token-bucket', limit: 10, window: 10_000 }), T0, 2); // 8 left
      expect(
        (
          await client.peek(
            policy({ algo: 'token-bucket', limit: 10, window: 10_000, burst: 4 }),
            T0,
          )
        ).remaining,
      ).toBe(4);
      expect(
        (await client.peek(policy({ algo: 'token-bucket', limit: 20, window: 10_000 }), T0))
          .remaining,
      ).toBe(8);
    });

    it('refund gives back what consume charged', async () => {
      for (const algo of RATE_LIMIT_ALGORITHMS) {
        const p = policy({ algo, limit: 5, window: 10_000 }, `refund-${algo}`);
        await hits(p, T0, 3);
        await client.refund(p, T0, T0);
        expect([algo, (await client.peek(p, T0)).remaining]).toEqual([algo, 3]);
      }
    });

    it('fixed-window: a count reaching 1,000,000 (past the packed form 6 digits) is kept', async () => {
      const p = policy({ algo: 'fixed-window', limit: 3_000_000, window: 10_000 }, 'fw-1e6');
      expect((await client.hit(p, T0, 999_999)).remaining).toBe(2_000_001);
      expect((await client.hit(p, T0)).remaining).toBe(2_000_000);
      expect((await client.peek(p, T0)).remaining).toBe(2_000_000);
      expect((await client.hit(p, T0)).remaining).toBe(1_999_999);
      const whole = policy({ algo: 'fixed-window', limit: 3_000_000, window: 10_000 }, 'fw-1e6b');
      expect((await client.hit(whole, T0, 1_000_000)).remaining).toBe(2_000_000);
      expect((await client.peek(whole, T0)).remaining).toBe(2_000_000);
      // Written whole, the count expires when its window ends: 9 s after T0 (1 s into one).
      const ttl = await sut.pttl(client.entry(whole).key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(9_000);
    });

    it('fixed-window: a packed count of a window ending on a ms not a multiple of 10', async () => {
      const p = policy({ algo: 'fixed-window', limit: 4, window: 1_001 }, 'fw-1001');
      // The packed form's count is its last 6 digits: the end's last digit is not one of them.
      expect((Math.floor(T0 / 1_001) + 1) % 10).not.toBe(0);
      expect((await hits(p, T0, 3)).map((o) => o.remaining)).toEqual([3, 2, 1]);
    });

    it('sliding-window: a unit 1 us from leaving the window still resets in 1 ms', async () => {
      const p = policy({ algo: 'sliding-window', limit: 1, window: 10_000 }, 'sw-1us');
      await client.hit(p, T0);
      const last = T0 + 10_000 - 0.001;
      expect(await client.peek(p, last)).toMatchObject({ remaining: 0, resetMs: 1 });
      expect(await client.hit(p, last)).toMatchObject({ allowed: false, retryAfterMs: 1 });
      expect((await client.hit(p, T0 + 10_000)).allowed).toBe(true);
    });

    it('sliding-window-counter: a count weighs until the end of the window after its own, not at it', async () => {
      const short = policy({ algo: 'sliding-window-counter', limit: 5, window: 1_000 }, 'swc-len');
      const long = policy({ algo: 'sliding-window-counter', limit: 5, window: 10_000 }, 'swc-len');
      await hits(short, T0, 3); // T0 starts a 1 s window: the count is in force until T0 + 2 s
      expect((await client.peek(long, T0 + 2_000 - 0.001)).remaining).toBe(2);
      expect((await client.peek(long, T0 + 2_000)).remaining).toBe(5);
    });

    it('gcra: a TAT a hair under a whole us is kept as that us, and counts until it', async () => {
      const p = policy({ algo: 'gcra', limit: 290, window: 10_000 }, 'gcra-carry');
      // 29 intervals of 10 s / 290 are 999,999.9999999999 us in doubles: the fraction rounds
      // to 2^32 / 2^32, carried to a whole 1,000,000 us.
      expect((await client.hit(p, T0, 29)).remaining).toBe(261);
      expect((await client.peek(p, T0 + 999.999)).remaining).toBe(289);
      expect((await client.peek(p, T0 + 1_000)).remaining).toBe(290);
    });

    it('fixed-window: a refund after the window rolled over leaves the new window alone', async () => {
      const p = policy({ algo: 'fixed-window', limit: 5, window: 10_000 });
      const end = (Math.floor(T0 / 10_000) + 1) * 10_000;
      await client.hit(p, end - 1); // charged in the window that is about to end
      await hits(p, end, 2);
      await client.refund(p, end + 1, end - 1);
      expect((await client.hit(p, end + 2)).remaining).toBe(2);
    });

    it('sliding-window-counter: a refund after the rollover gives back to the previous window', async () => {
      const p = policy({ algo: 'sliding-window-counter', limit: 10, window: 10_000 });
      const end = (Math.floor(T0 / 10_000) + 1) * 10_000;
      await hits(p, end - 1, 6);
      await hits(p, end + 1, 2);
      await client.refund(p, end + 2, end - 1);
      // A tenth in: 5 of the previous window weigh 4.5, plus 2 in this one and 1 more: 7.5 used
      // (without the refund, 6 would weigh 5.4: 8.4 used, 1 left).
      expect(await client.hit(p, end + 1_000)).toMatchObject({ allowed: true, remaining: 2 });
    });

    it('sliding-window: a refund removes the members it charged, not newer ones', async () => {
      const p = policy({ algo: 'sliding-window', limit: 2, window: 10_000 });
      await client.hit(p, T0);
      await client.hit(p, T0 + 5_000);
      await client.refund(p, T0 + 5_001, T0);
      expect((await client.hit(p, T0 + 5_002)).allowed).toBe(true);
      // T0 + 5 s and T0 + 5.002 s are both still in the window.
      expect((await client.hit(p, T0 + 12_000)).allowed).toBe(false);
    });

    it('hostile identities cannot escape their hash tag or collide', async () => {
      const p = policy({ algo: 'fixed-window', limit: 1, window: 10_000 });
      const hostile = [
        'a}:b{',
        '*',
        'x:y',
        'new\nline',
        '\0',
        '%7B',
        '{',
        '}',
        'é',
        'z'.repeat(65_536),
        'z'.repeat(65_535) + 'y',
      ];
      for (const identity of hostile) {
        const c = new Client(sut, identity);
        const key = c.entry(p).key;
        expect(key.length).toBeLessThan(200);
        expect(key.match(/[{}]/g)).toEqual(['{', '}']);
        expect((await c.hit(p, T0)).allowed).toBe(true);
      }
      expect(await sut.keyCount()).toBe(hostile.length);
    });
  });

  describe('a change of window keeps the counts (SPEC 3: state is kept)', () => {
    const DAY = T0 - 1_000; // a window start for every length used here
    const HOUR = 3_600_000;
    const WINDOWED = ['fixed-window', 'sliding-window-counter'] as const;
    /** What a key needs after a write 2 s into a window: to its end, or to the next one's. */
    const neededMs = (algo: RateLimitAlgorithm, windowMs: number) =>
      (algo === 'fixed-window' ? windowMs : 2 * windowMs) - 2_000;

    it.each(WINDOWED)('%s: a longer window keeps an exhausted client rejected', async (algo) => {
      const short = policy({ algo, limit: 5, window: 10_000 });
      const long = policy({ algo, limit: 5, window: '1h' });
      const key = client.entry(short).key;
      await hits(short, T0, 5);
      expect(await client.peek(long, T0 + 1_000)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await sut.pttl(key)).toBeLessThanOrEqual(neededMs(algo, 10_000) + 1_000); // peek: no write
      expect(await client.hit(long, T0 + 1_000)).toMatchObject({
        allowed: false,
        reason: 'limit',
        remaining: 0,
      });
      // Even a rejection moves the count and its expiry to the hour: the 10 s window it was
      // counted in ends, the client stays limited.
      expect(await sut.pttl(key)).toBeGreaterThan(neededMs(algo, 10_000) + 1_000);
      expect(await sut.pttl(key)).toBeLessThanOrEqual(neededMs(algo, HOUR));
      expect((await client.hit(long, DAY + 30_000)).allowed).toBe(false);
      expect((await client.hit(long, DAY + HOUR - 1)).allowed).toBe(false);
      const fresh = algo === 'fixed-window' ? DAY + HOUR : DAY + 2 * HOUR;
      expect(await client.hit(long, fresh)).toMatchObject({ allowed: true, remaining: 4 });
    });

    it.each(WINDOWED)(
      '%s: a shorter window re-tightens the expiry on the next request, even when nothing is charged',
      async (algo) => {
        const long = policy({ algo, limit: 5, window: '1h' });
        const short = policy({ algo, limit: 5, window: 10_000 });
        const narrow = policy({ algo: 'fixed-window', limit: 1, window: '1h' }, 'narrow');
        const key = client.entry(long).key;
        await hits(long, T0, 2);
        await client.hit(narrow, T0);
        const reply = await client.run('consume', [short, narrow], T0 + 1_000);
        expect(reply.admitted).toBe(false);
        expect(reply.decisions[0]).toMatchObject({ allowed: true, remaining: 2 });
        expect(await sut.pttl(key)).toBeLessThanOrEqual(neededMs(algo, 10_000));
        expect((await client.peek(short, T0 + 1_000)).remaining).toBe(3);
      },
    );

    it('fixed-window: a shorter window frees an exhausted client when the new window ends', async () => {
      const long = policy({ algo: 'fixed-window', limit: 5, window: '1h' });
      const short = policy({ algo: 'fixed-window', limit: 5, window: 10_000 });
      const key = client.entry(long).key;
      await hits(long, T0, 5);
      expect(await client.hit(short, T0 + 1_000)).toMatchObject({
        allowed: false,
        reason: 'limit',
        retryAfterMs: 8_000,
      });
      expect(await sut.pttl(key)).toBeLessThanOrEqual(8_000);
      expect((await client.hit(short, DAY + 9_999)).allowed).toBe(false);
      expect(await client.hit(short, DAY + 10_000)).toMatchObject({ allowed: true, remaining: 4 });
    });

    it('sliding-window-counter: a shorter window re-tightens the expiry; the count then weighs one window more', async () => {
      const long = policy({ algo: 'sliding-window-counter', limit: 5, window: '1h' });
      const short = policy({ algo: 'sliding-window-counter', limit: 5, window: 10_000 });
      const key = client.entry(long).key;
      await hits(long, T0, 5);
      expect(await client.hit(short, T0 + 1_000)).toMatchObject({
        allowed: false,
        reason: 'limit',
      });
      expect(await sut.pttl(key)).toBeLessThanOrEqual(18_000);
      // As after any window: the count weighs as the previous window's, 0.8 of it 2 s in.
      expect((await client.hit(short, DAY + 10_000)).allowed).toBe(false);
      expect((await client.peek(short, DAY + 12_000)).remaining).toBe(1);
      expect(await client.hit(short, DAY + 20_000)).toMatchObject({ allowed: true, remaining: 4 });
    });

    it('sliding-window-counter: a count stays with the time it was counted in', async () => {
      const short = policy({ algo: 'sliding-window-counter', limit: 10, window: 10_000 });
      const long = policy({ algo: 'sliding-window-counter', limit: 10, window: '1h' });
      const other = new Client(sut, 'ip:198.51.100.10');
      // A 10 s window that ended 2 s ago lies in the current hour: all of it counts there.
      await hits(short, T0, 10);
      expect((await client.peek(short, DAY + 12_000)).remaining).toBe(2); // 0.8 of it under 10 s
      expect(await client.hit(long, DAY + 12_000)).toMatchObject({ allowed: false, remaining: 0 });
      // The previous hour ended 5 minutes ago, long before the current 10 s window: not counted.
      await other.hit(long, T0, 5);
      expect(await other.hit(long, DAY + HOUR + 300_000)).toMatchObject({ remaining: 4 });
      expect(await other.hit(short, DAY + HOUR + 301_000)).toMatchObject({ remaining: 8 });
    });

    it.each(WINDOWED)(
      '%s: with the window unchanged a rollover starts fresh; a new limit keeps the count',
      async (algo) => {
        const p = policy({ algo, limit: 5, window: 10_000 });
        const wider = policy({ algo, limit: 8, window: 10_000 });
        await hits(p, T0, 5);
        expect(await client.hit(wider, T0 + 1_000)).toMatchObject({ allowed: true, remaining: 2 });
        const fresh = algo === 'fixed-window' ? DAY + 10_000 : DAY + 20_000;
        expect(await client.hit(p, fresh)).toMatchObject({ allowed: true, remaining: 4 });
      },
    );

    it.each(WINDOWED)(
      '%s: a refund after a change of window gives back to the moved count',
      async (algo) => {
        const short = policy({ algo, limit: 5, window: 10_000 });
        const long = policy({ algo, limit: 5, window: '1h' });
        const key = client.entry(short).key;
        await hits(short, T0, 3);
        await client.refund(long, T0 + 1, T0);
        expect((await client.peek(long, T0 + 2)).remaining).toBe(3);
        expect(await sut.pttl(key)).toBeGreaterThan(neededMs(algo, 10_000) + 1_000);
        await client.hit(long, T0 + 3);
        await client.refund(short, T0 + 4, T0 + 3);
        expect((await client.peek(short, T0 + 5)).remaining).toBe(3);
        expect(await sut.pttl(key)).toBeLessThanOrEqual(neededMs(algo, 10_000) + 1_000);
      },
    );
  });
});

/** A decision without what says which store made it: the rest must be the same from both. */
function bare({
  source: _source,
  ...decision
}: RateLimitDecision): Omit<RateLimitDecision, 'source'> {
  return decision;
}

describe('conformance: both stores give identical replies to the same random traffic', () => {
  const redis = redisFactory();
  const memory = memoryFactory();
  beforeAll(async () => {
    await redis.setup();
    await memory.setup();
  });
  afterAll(async () => {
    await redis.teardown();
    await memory.teardown();
  });

  it.each(RATE_LIMIT_ALGORITHMS)('%s', async (algo) => {
    const next = seededRandom(algo.length * 7919);
    const onRedis = new Client(await redis.create(), 'ip:203.0.113.9');
    const inMemory = new Client(await memory.create(), 'ip:203.0.113.9');
    const p = policy({ algo, limit: 7, window: 3_000, burst: algo === 'gcra' ? 9 : undefined });
    let now = T0;
    const redisOut = [];
    const memoryOut = [];
    for (let i = 0; i < 400; i++) {
      now += Math.floor(next() * 700);
      const cost = 1 + Math.floor(next() * 3);
      const op = next() < 0.1 ? 'peek' : 'consume';
      redisOut.push(bare((await onRedis.run(op, [p], now, op === 'peek' ? 0 : cost)).decisions[0]));
      memoryOut.push(
        bare((await inMemory.run(op, [p], now, op === 'peek' ? 0 : cost)).decisions[0]),
      );
    }
    expect(memoryOut).toEqual(redisOut);
    expect(redisOut.filter((o) => o.allowed).length).toBeGreaterThan(50);
    expect(redisOut.filter((o) => !o.allowed).length).toBeGreaterThan(20);
  });

  it.each(['fixed-window', 'sliding-window-counter'] as const)(
    '%s, with `window` and `limit` changed and refunds in between',
    async (algo) => {
      const next = seededRandom(algo.length * 104_729);
      const onRedis = new Client(await redis.create(), 'ip:203.0.113.10');
      const inMemory = new Client(await memory.create(), 'ip:203.0.113.10');
      const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)];
      let p = policy({ algo, limit: 7, window: 3_000 });
      let now = T0;
      let chargedAt = now;
      const redisOut = [];
      const memoryOut = [];
      for (let i = 0; i < 400; i++) {
        now += Math.floor(next() * 700);
        if (next() < 0.1) {
          p = policy({
            algo,
            limit: pick([4, 7, 10]),
            window: pick([1_000, 3_000, 10_000, 60_000]),
          });
        }
        const cost = 1 + Math.floor(next() * 3);
        const roll = next();
        if (roll < 0.1) {
          await onRedis.refund(p, now, chargedAt, cost);
          await inMemory.refund(p, now, chargedAt, cost);
          continue;
        }
        const op = roll < 0.2 ? 'peek' : 'consume';
        const fromRedis = bare(
          (await onRedis.run(op, [p], now, op === 'peek' ? 0 : cost)).decisions[0],
        );
        redisOut.push(fromRedis);
        memoryOut.push(
          bare((await inMemory.run(op, [p], now, op === 'peek' ? 0 : cost)).decisions[0]),
        );
        if (op === 'consume' && fromRedis.allowed) chargedAt = now;
      }
      expect(memoryOut).toEqual(redisOut);
      expect(redisOut.filter((o) => o.allowed).length).toBeGreaterThan(50);
      expect(redisOut.filter((o) => !o.allowed).length).toBeGreaterThan(20);
    },
  );
});
