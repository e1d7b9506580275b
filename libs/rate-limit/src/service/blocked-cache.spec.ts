import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import { BlockedCache } from './blocked-cache';

const decision = (over: Partial<RateLimitDecision>): RateLimitDecision => ({
  policy: 'p',
  allowed: false,
  shadow: false,
  limit: 5,
  remaining: 0,
  resetMs: 2_000,
  retryAfterMs: 2_000,
  reason: 'limit',
  source: 'redis',
  ...over,
});
const rejected = (decisions: RateLimitDecision[]): RateLimitVerdict => ({
  allowed: false,
  decisions,
  source: 'redis',
});

describe('BlockedCache', () => {
  it('answers a remembered rejection until its retry time, with the wait counting down', () => {
    const cache = new BlockedCache();
    cache.remember('k', rejected([decision({})]), 1_000);
    expect(cache.get('k', 1_500)?.decisions[0]).toMatchObject({
      retryAfterMs: 1_500,
      resetMs: 1_500,
    });
    expect(cache.get('k', 2_999)?.allowed).toBe(false);
    expect(cache.get('k', 3_000)).toBeUndefined();
  });

  it('waits for the slowest rejecting policy, ignoring shadow ones', () => {
    const cache = new BlockedCache();
    cache.remember(
      'k',
      rejected([
        decision({ retryAfterMs: 500 }),
        decision({ retryAfterMs: 900 }),
        decision({ shadow: true, retryAfterMs: 5_000 }),
      ]),
      0,
    );
    expect(cache.get('k', 899)).toBeDefined();
    expect(cache.get('k', 900)).toBeUndefined();
  });

  it('keeps nothing that is admitted, decided without Redis, or never admissible', () => {
    const cache = new BlockedCache();
    cache.remember('a', { allowed: true, decisions: [], source: 'redis' }, 0);
    cache.remember('b', { ...rejected([decision({})]), source: 'memory' }, 0);
    cache.remember(
      'c',
      rejected([decision({ reason: 'cost-exceeds-capacity', retryAfterMs: 0 })]),
      0,
    );
    expect([cache.get('a', 1), cache.get('b', 1), cache.get('c', 1)]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('is bounded: the oldest entry goes first', () => {
    const cache = new BlockedCache(2);
    for (const key of ['x', 'y', 'z']) cache.remember(key, rejected([decision({})]), 0);
    expect(cache.get('x', 1)).toBeUndefined();
    expect(cache.get('z', 1)).toBeDefined();
    cache.clear();
    expect(cache.get('z', 1)).toBeUndefined();
  });
});
