import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import { KeyBuilder } from '../keys/key-builder';
import { BlockedCache, DEFAULT_REMEMBERED_REJECTIONS, rejectionKey } from './blocked-cache';

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

  it("keeps no rejection by a client's quota, which may end before its retry time", () => {
    const cache = new BlockedCache();
    cache.remember('quota', rejected([decision({ clientOverride: 'quota' })]), 0);
    // Also when another policy of the request rejects it for longer.
    const both = [decision({ retryAfterMs: 9_000 }), decision({ clientOverride: 'quota' })];
    cache.remember('both', rejected(both), 0);
    cache.remember('plain', rejected([decision({})]), 0);
    expect(cache.get('quota', 1)).toBeUndefined();
    expect(cache.get('both', 1)).toBeUndefined();
    expect(cache.get('plain', 1)?.allowed).toBe(false);
    expect(cache.size).toBe(1);
  });

  it('is bounded: the least recently asked-about entry goes first', () => {
    const cache = new BlockedCache(2);
    for (const key of ['x', 'y']) cache.remember(key, rejected([decision({})]), 0);
    expect(cache.get('x', 1)).toBeDefined(); // y is now the least recently used
    cache.remember('z', rejected([decision({})]), 0);
    expect([cache.get('x', 1), cache.get('y', 1), cache.get('z', 1)].map(Boolean)).toEqual([
      true,
      false,
      true,
    ]);
    expect(cache.size).toBe(2);
    cache.clear();
    expect(cache.get('z', 1)).toBeUndefined();
  });

  it(`holds ${DEFAULT_REMEMBERED_REJECTIONS} rejections at most by default`, () => {
    const cache = new BlockedCache();
    for (let i = 0; i < DEFAULT_REMEMBERED_REJECTIONS + 500; i++) {
      cache.remember(`k${i}`, rejected([decision({})]), 0);
    }
    expect(cache.size).toBe(DEFAULT_REMEMBERED_REJECTIONS);
  });

  it('never keeps a 16 KB key: it answers for it, stored under a short digest', () => {
    const cache = new BlockedCache();
    const long = `1\u0000p\u0000${'k'.repeat(16_384)}`;
    cache.remember(long, rejected([decision({})]), 0);
    expect(cache.get(long, 1)?.allowed).toBe(false);
    expect(cache.get(`${long}!`, 1)).toBeUndefined();
    expect(cache.storedKeys().map((key) => key.length)).toEqual([44]);
  });
});

describe('rejectionKey', () => {
  const keys = new KeyBuilder('rl');
  const request = (identity: string, cost = 1) => ({ policy: { name: 'Api.get' }, identity, cost });

  it('keys a 16 KB identity by its bounded key tag, not by its text', () => {
    const identity = `api-key:${'A'.repeat(16_384)}`;
    const key = rejectionKey([request(identity)], keys.identityTag);
    expect(key.length).toBeLessThan(200);
    expect(key).toContain(keys.identityTag(identity));
    expect(rejectionKey([request(`${identity}B`)], keys.identityTag)).not.toBe(key);
  });

  it('tells apart costs, policies and identities, one request or several', () => {
    const one = (identity: string, cost?: number) =>
      rejectionKey([request(identity, cost)], keys.identityTag);
    const both = rejectionKey([request('a'), request('b')], keys.identityTag);
    expect(new Set([one('a'), one('a', 2), one('b'), both]).size).toBe(4);
  });
});
