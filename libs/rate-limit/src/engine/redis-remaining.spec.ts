import { normalizePolicy } from '../policy/normalize-policy';
import type { StoreEntry, StoreReply } from '../store/rate-limit-store.interface';
import { RedisRemaining } from './redis-remaining';

const bucket = normalizePolicy({ algo: 'token-bucket', limit: 100, window: 60_000 }, 'p', 'test');
const e: StoreEntry = { key: 'k', blockKey: 'k:block', policy: bucket, cost: 1 };
const standing = { instances: 1, rank: 0 };

/** Redis's admitted reply with `remaining` left, full again in `resetMs`. */
const said = (remaining: number, resetMs: number): StoreReply => ({
  decidedAtUs: 0,
  admitted: true,
  decisions: [
    {
      policy: 'p',
      allowed: true,
      shadow: false,
      limit: 100,
      remaining,
      resetMs,
      retryAfterMs: 0,
      source: 'redis',
    },
  ],
});

describe('RedisRemaining', () => {
  afterEach(() => jest.restoreAllMocks());

  it('forgets what has passed: a reply whose reset went by holds nothing, nor a full bucket', () => {
    let nowMs = 1_000;
    const remaining = new RedisRemaining(100, () => nowMs);
    remaining.note([e], said(40, 10), nowMs);
    expect(remaining.has('k')).toBe(true);
    expect(remaining.allowance('k', standing, undefined, nowMs)).toBe(40);
    nowMs += 10;
    expect(remaining.has('k')).toBe(false);
    expect(remaining.allowance('k', standing, undefined, nowMs)).toBeUndefined();
    // A new run starts from the next reply, not from the passed one's remainder.
    remaining.note([e], said(99, 10), nowMs);
    expect(remaining.allowance('k', standing, undefined, nowMs)).toBe(99);
    remaining.note([e], said(100, 0), nowMs);
    expect(remaining.has('k')).toBe(false);
    expect(remaining.resetMs('k')).toBe(1);
  });

  it('a lone client whose entry passes between requests costs nothing in proportion to maxKeys', () => {
    // The hostile extreme of a default 100,000: lru-cache cleared itself whenever its only entry
    // was deleted, writing every one of its slots, on every request of that client.
    let nowMs = 0;
    const remaining = new RedisRemaining(1_000_000, () => nowMs);
    const fill = jest.spyOn(Array.prototype, 'fill');
    for (let i = 0; i < 100; i++) {
      remaining.note([e], said(99, 1), nowMs);
      nowMs += 5; // the bucket is full again before the next request
    }
    remaining.note([e], said(100, 0), nowMs);
    const slotsWritten = fill.mock.contexts.reduce<number>(
      (n, array) => n + (array as unknown[]).length,
      0,
    );
    expect(slotsWritten).toBeLessThan(1_000);
  });
});
