import { normalizePolicy } from '../policy/normalize-policy';
import type { RateLimitAlgorithm } from '../policy/rate-limit-algorithm';
import { RATE_LIMIT_ALGORITHMS } from '../policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { InstanceStanding } from './instance-standing';
import { MemoryStore } from '../store/memory/memory-store';
import type { StoreEntry, StoreReply } from '../store/rate-limit-store.interface';
import { encodeClientOverride } from '../store/client-override-value';
import { FallbackStore } from './fallback-store';
import { shareOf, splitOf } from './outage-share';
import { RedisRemaining } from './redis-remaining';

const YEAR_MS = 365 * 86_400_000;
const policy = (
  algo: RateLimitAlgorithm,
  limit = 50,
  mode: 'enforce' | 'shadow' = 'enforce',
  window = YEAR_MS,
) => normalizePolicy({ algo, limit, window, mode }, `p-${algo}`, 'test');
const entry = (p: RateLimitPolicy, key = 'k'): StoreEntry => ({
  key: `${key}:${p.algo}`,
  overrideKey: `${key}:${p.name}:client`,
  blockKey: `${key}:${p.algo}:block`,
  policy: p,
  cost: 1,
});

const stores: FallbackStore[] = [];
function fleet(instances: number, fraction?: number): FallbackStore[] {
  return Array.from({ length: instances }, (_, rank) => {
    const standing: InstanceStanding = { instances, rank };
    const store = new FallbackStore(new MemoryStore(), { standing }, fraction);
    stores.push(store);
    return store;
  });
}
afterAll(() => stores.forEach((s) => s.close()));

/** Consumes until the store refuses (at most `max` tries); answers how many it admitted. */
async function admits(store: FallbackStore, e: StoreEntry, max = 1_000): Promise<number> {
  let admitted = 0;
  while (admitted < max && (await store.decide('consume', [e])).admitted) admitted++;
  return admitted;
}

/** What Redis would answer for a single policy with `remaining` left until `resetMs`. */
const redisSaid = (remaining: number, resetMs = 60_000): StoreReply => ({
  decidedAtUs: 0,
  admitted: remaining > 0,
  decisions: [
    {
      policy: 'p',
      allowed: remaining > 0,
      shadow: false,
      limit: 10,
      remaining,
      resetMs,
      retryAfterMs: 0,
      source: 'redis',
    },
  ],
});

describe('outage shares', () => {
  it('split a value into parts that add up to it exactly, for any number of instances', () => {
    for (let instances = 1; instances <= 7; instances++) {
      for (const value of [0, 1, 2, 5, 49, 50, 51, 1_000_000_000]) {
        const parts = Array.from({ length: instances }, (_, rank) =>
          splitOf(value, { instances, rank }, undefined),
        );
        expect(parts.reduce((a, b) => a + b, 0)).toBe(value);
        expect(Math.max(...parts) - Math.min(...parts)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('never share a threshold down to nothing', () => {
    expect(shareOf(2, { instances: 5, rank: 4 }, undefined)).toBe(1);
    expect(shareOf(3, { instances: 1, rank: 0 }, 0.1)).toBe(1);
  });
});

describe('FallbackStore (memory fallback while Redis is away)', () => {
  it.each(RATE_LIMIT_ALGORITHMS)(
    '%s: three instances together admit the limit for a client Redis never saw',
    async (algo) => {
      const p = policy(algo);
      const counts = await Promise.all(fleet(3).map((s) => admits(s, entry(p))));
      expect(counts).toEqual([17, 17, 16]);
    },
  );

  it.each(RATE_LIMIT_ALGORITHMS)(
    '%s: they admit what Redis last said was left, not a fresh limit',
    async (algo) => {
      const p = policy(algo);
      const instances = fleet(3);
      // Redis admitted 30 of 50 before it went away: 20 left, seen by every instance. Each
      // takes a third, rounded down (its last reply may be behind the others').
      instances.forEach((s) => s.note([entry(p)], redisSaid(20)));
      const counts = await Promise.all(instances.map((s) => admits(s, entry(p))));
      expect(counts).toEqual([6, 6, 6]);
    },
  );

  it.each(RATE_LIMIT_ALGORITHMS)(
    '%s: requests decided at the same time admit no more than their share of what Redis left',
    async (algo) => {
      const p = policy(algo);
      const instances = fleet(3);
      // 44 left: a share of 14 each. The timeouts of a burst end together, so the fallback
      // decides its requests all at once.
      instances.forEach((s) => s.note([entry(p)], redisSaid(44)));
      const counts = await Promise.all(
        instances.map(async (s) => {
          const replies = await Promise.all(
            Array.from({ length: 100 }, () => s.decide('consume', [entry(p)])),
          );
          return replies.filter((reply) => reply.admitted).length;
        }),
      );
      expect(counts).toEqual([14, 14, 14]);
    },
  );

  it.each(RATE_LIMIT_ALGORITHMS)(
    "%s: reports the policy's configured capacity as the limit, not the share",
    async (algo) => {
      const p = policy(algo);
      const [store, exhausted] = fleet(2);
      expect((await store.decide('consume', [entry(p)])).decisions[0]).toMatchObject({
        allowed: true,
        limit: 50,
        remaining: 24,
      });
      expect(store.decide('peek', [entry(p)]).decisions[0].limit).toBe(50);
      exhausted.note([entry(p)], redisSaid(0));
      expect(exhausted.decide('consume', [entry(p)]).decisions[0]).toMatchObject({
        allowed: false,
        limit: 50,
      });
      // A quota client is decided on its quota, which is the limit it is told.
      const quota = encodeClientOverride({ action: 'quota', limit: 8, burst: 8 });
      await store.memory.putClientOverride(entry(p, 'q').overrideKey!, quota);
      expect(store.decide('consume', [entry(p, 'q')]).decisions[0]).toMatchObject({
        limit: 8,
        clientOverride: 'quota',
      });
    },
  );

  it('refuses a client Redis said was at its limit until that reset time, charging nothing', async () => {
    const p = policy('fixed-window');
    const [store] = fleet(2);
    store.note([entry(p)], redisSaid(0, 5_000));
    const reply = await store.decide('consume', [entry(p)]);
    expect(reply.admitted).toBe(false);
    expect(reply.decisions[0]).toMatchObject({ allowed: false, remaining: 0, reason: 'limit' });
    expect(reply.decisions[0].retryAfterMs).toBeGreaterThan(4_900);
    expect(reply.decisions[0].retryAfterMs).toBeLessThanOrEqual(5_000);
    // Nothing charged: the memory still holds a whole share once the note is gone.
    await store.delete([entry(p).key]);
    expect(await admits(store, entry(p))).toBe(25);
  });

  it('reports the smaller of the memory share and what Redis left as remaining', async () => {
    const p = policy('gcra');
    const [store] = fleet(1);
    store.note([entry(p)], redisSaid(3));
    const reply = await store.decide('consume', [entry(p)]);
    expect(reply.decisions[0]).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('ignores notes about shadow policies and forgets notes on delete (a reset)', async () => {
    const shadow = policy('token-bucket', 50, 'shadow');
    const enforced = policy('token-bucket', 4);
    const [store] = fleet(1);
    store.note([entry(shadow), entry(enforced)], {
      admitted: false,
      decidedAtUs: 0,
      decisions: [redisSaid(0).decisions[0], redisSaid(0).decisions[0]],
    });
    expect((await store.decide('consume', [entry(shadow)])).admitted).toBe(true);
    expect((await store.decide('consume', [entry(enforced)])).admitted).toBe(false);
    await store.delete([entry(enforced).key]);
    expect(await admits(store, entry(enforced))).toBe(4);
  });

  it('forgets a note once its reset time has passed (an idle key needs none)', async () => {
    const p = policy('sliding-window', 10);
    const [store] = fleet(1);
    store.note([entry(p)], redisSaid(0, 0));
    expect(await admits(store, entry(p))).toBe(10);
  });

  it('with a fixed fraction, each instance admits that part whatever the instance count', async () => {
    const p = policy('leaky-bucket', 50);
    const counts = await Promise.all(fleet(3, 0.5).map((s) => admits(s, entry(p, 'f'))));
    expect(counts).toEqual([25, 25, 25]);
  });
});

describe('RedisRemaining: what was left when Redis stopped answering', () => {
  const alone: InstanceStanding = { instances: 1, rank: 0 };
  const p = policy('fixed-window');
  let nowMs = 0;
  const seen = () => new RedisRemaining(10, () => nowMs);

  it('lowers the last remainder by the fleet pace over the gap before the outage', () => {
    const remaining = seen();
    nowMs = 1_000;
    remaining.note([entry(p)], redisSaid(30));
    nowMs = 1_010;
    remaining.note([entry(p)], redisSaid(20)); // the fleet admits 1 per ms
    // Redis stopped answering 5 ms after this instance's last reply.
    expect(remaining.allowance(entry(p).key, alone, undefined, 1_015)).toBe(15);
  });

  it('extrapolates no longer than the pace was seen (a client that went quiet keeps its remainder)', () => {
    const remaining = seen();
    nowMs = 0;
    remaining.note([entry(p)], redisSaid(40));
    nowMs = 10;
    remaining.note([entry(p)], redisSaid(30));
    expect(remaining.allowance(entry(p).key, alone, undefined, 100_000)).toBe(20);
  });

  it('forgets a key at the reset Redis last gave, on its own clock, and keeps a run until then', () => {
    const remaining = seen();
    nowMs = 0;
    remaining.note([entry(p)], redisSaid(30, 100));
    nowMs = 60;
    remaining.note([entry(p)], redisSaid(20, 100)); // the run goes on; its reset moves to 160
    nowMs = 159;
    expect(remaining.has(entry(p).key)).toBe(true);
    expect(remaining.resetMs(entry(p).key)).toBe(1);
    expect(remaining.allowance(entry(p).key, alone, undefined, 60)).toBe(20);
    nowMs = 160;
    expect(remaining.has(entry(p).key)).toBe(false);
    expect(remaining.allowance(entry(p).key, alone, undefined, 160)).toBeUndefined();
  });

  it('keeps the remainder as it is with a single reply, or a remainder that grew (a new window)', () => {
    const remaining = seen();
    nowMs = 0;
    remaining.note([entry(p)], redisSaid(10));
    nowMs = 5;
    remaining.note([entry(p)], redisSaid(45));
    expect(remaining.allowance(entry(p).key, alone, undefined, 50)).toBe(45);
  });

  it('gives no more than the split of the capacity less what Redis admitted for this instance (a late last reply)', () => {
    const remaining = seen();
    const one: InstanceStanding = { instances: 3, rank: 0 };
    nowMs = 0;
    // Twelve replies read in one go (a busy process): no pace, and the last says 38 were left
    // while the other instances had been admitted as many meanwhile.
    for (let left = 49; left >= 38; left--) remaining.note([entry(p)], redisSaid(left));
    // floor(38 / 3) = 12 by the remainder, 17 - 12 = 5 by its own admissions.
    expect(remaining.allowance(entry(p).key, one, undefined, 1)).toBe(5);
    // A new run (the remainder grew: a new window) starts its own count again.
    remaining.note([entry(p)], redisSaid(49));
    expect(remaining.allowance(entry(p).key, one, undefined, 1)).toBe(16);
  });

  it('leaves a run older than its units stay counted to the remainder (a bucket drained slower than it refills)', () => {
    const remaining = seen();
    // 60 per minute, burst 60: one token a second. A request every 0.5 s drains it by one a
    // second and the remainder never grows: 61 admitted in 30 s, half of it refilled.
    const bucket = policy('token-bucket', 60, 'enforce', 60_000);
    for (let i = 0; i <= 60; i++) {
      nowMs = i * 500;
      remaining.note([entry(bucket)], redisSaid(60 - Math.ceil(i / 2) - 1));
    }
    // 29 left, lowered by the pace over the 100 ms gap: 28, not 60 - 61 admitted.
    expect(remaining.allowance(entry(bucket).key, alone, undefined, 30_100)).toBe(28);
  });

  it('counts a reply Redis gave after its call timed out, keeping what this instance admitted meanwhile', () => {
    const remaining = seen();
    const one: InstanceStanding = { instances: 3, rank: 0 };
    nowMs = 0;
    remaining.note([entry(p)], redisSaid(40));
    remaining.spend(entry(p).key, 2); // the fallback admitted two meanwhile
    // Redis admitted the timed-out request after all, and others' before it: 30 left.
    remaining.noteLate([entry(p)], redisSaid(30));
    // min(floor(30 / 3), 17 - 2 admitted by Redis) - 2 spent.
    expect(remaining.allowance(entry(p).key, one, undefined, 1)).toBe(8);
    // A key it knew nothing about is noted as a reply in time would be.
    remaining.noteLate([entry(p, 'new')], redisSaid(20));
    expect(remaining.allowance(entry(p, 'new').key, one, undefined, 1)).toBe(6);
  });

  it('keeps what its fallback admitted in a short spell when Redis answers again (a slow Redis, then an outage)', () => {
    const remaining = seen();
    const one: InstanceStanding = { instances: 3, rank: 0 };
    nowMs = 0;
    remaining.note([entry(p)], redisSaid(49));
    // A call timed out (Redis starved of CPU): the fallback admitted 5 that Redis never saw.
    remaining.allowance(entry(p).key, one, undefined, 1);
    remaining.spend(entry(p).key, 5);
    // Redis answers the next call in time: the same run goes on.
    remaining.note([entry(p)], redisSaid(47));
    // Then the outage: 17 - 2 admitted by Redis - the 5 of the fallback; floor(47 / 3) = 15.
    expect(remaining.allowance(entry(p).key, one, undefined, 2)).toBe(10);
  });

  it('counts no admissions of earlier windows once a run outlasts a window (one request per window)', () => {
    const remaining = seen();
    const minute = policy('fixed-window', 50, 'enforce', 60_000);
    for (let w = 0; w < 60; w++) {
      nowMs = w * 60_000;
      remaining.note([entry(minute)], redisSaid(49));
    }
    expect(remaining.allowance(entry(minute).key, alone, undefined, nowMs + 10)).toBe(49);
  });
});

describe('FallbackStore: a client first seen while Redis is frozen', () => {
  it("gets the documented shares however many of its calls timed out (their answers are the fallback's)", async () => {
    const p = policy('fixed-window');
    // 100 requests per instance, all failing together (their timeouts end on one timer).
    const counts = await Promise.all(
      fleet(3).map(async (store) => {
        const replies = await Promise.all(
          Array.from({ length: 100 }, () => store.decide('consume', [entry(p, 'first')])),
        );
        return replies.filter((reply) => reply.admitted).length;
      }),
    );
    expect(counts).toEqual([17, 17, 16]);
  });
});
