import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { mostRestrictive, rateLimitHeaders, toSeconds, verdictHeaders } from './rate-limit-headers';

const d = (over: Partial<RateLimitDecision>): RateLimitDecision => ({
  policy: 'p',
  allowed: true,
  shadow: false,
  limit: 5,
  remaining: 3,
  resetMs: 1_000,
  retryAfterMs: 0,
  source: 'redis',
  ...over,
});

describe('mostRestrictive', () => {
  it('prefers a request that can never pass over a longer wait', () => {
    const never = d({
      policy: 'never',
      allowed: false,
      reason: 'cost-exceeds-capacity',
      retryAfterMs: 0,
    });
    const wait = d({ policy: 'wait', allowed: false, reason: 'limit', retryAfterMs: 5_000 });
    expect(mostRestrictive([wait, never])?.policy).toBe('never');
    expect(mostRestrictive([never, wait])?.policy).toBe('never');
  });

  it('prefers a denied client (no wait at all) over a longer wait, in either order', () => {
    const denied = d({ policy: 'denied', allowed: false, reason: 'denied', retryAfterMs: 0 });
    const wait = d({ policy: 'wait', allowed: false, reason: 'limit', retryAfterMs: 5_000 });
    expect(mostRestrictive([wait, denied])?.policy).toBe('denied');
    expect(mostRestrictive([denied, wait])?.policy).toBe('denied');
  });

  it('among rejections, the longest wait', () => {
    const short = d({ policy: 'short', allowed: false, reason: 'limit', retryAfterMs: 1_000 });
    const long = d({ policy: 'long', allowed: false, reason: 'limit', retryAfterMs: 9_000 });
    expect(mostRestrictive([short, long])?.policy).toBe('long');
  });

  it('describes an enforced policy before a shadow one, even one with fewer units left', () => {
    const shadow = d({
      policy: 'shadow',
      shadow: true,
      allowed: false,
      remaining: 0,
      retryAfterMs: 2_000,
    });
    const enforced = d({ policy: 'enforced', remaining: 3 });
    expect(mostRestrictive([shadow, enforced])?.policy).toBe('enforced');
  });

  it('prefers a rejection over an admission, in either order', () => {
    const rejected = d({ policy: 'rejected', allowed: false, reason: 'limit', retryAfterMs: 1 });
    const admitted = d({ policy: 'admitted', remaining: 0, resetMs: 60_000 });
    expect(mostRestrictive([admitted, rejected])?.policy).toBe('rejected');
    expect(mostRestrictive([rejected, admitted])?.policy).toBe('rejected');
  });

  it('does not depend on the order the policies are declared in', () => {
    const few = d({ policy: 'few', remaining: 1 });
    const many = d({ policy: 'many', remaining: 3 });
    expect(mostRestrictive([few, many])?.policy).toBe('few');
    expect(mostRestrictive([many, few])?.policy).toBe('few');
    const late = d({ policy: 'late', resetMs: 9_000 });
    const early = d({ policy: 'early', resetMs: 1_000 });
    expect(mostRestrictive([late, early])?.policy).toBe('late');
    expect(mostRestrictive([early, late])?.policy).toBe('late');
  });

  it('keeps the first of two policies in the same state', () => {
    expect(mostRestrictive([d({ policy: 'first' }), d({ policy: 'second' })])?.policy).toBe(
      'first',
    );
  });

  it('describes nothing when no policy applies', () => {
    expect(mostRestrictive([])).toBeUndefined();
  });

  it('otherwise the fewest units left, then the latest reset', () => {
    expect(
      mostRestrictive([d({ policy: 'a', remaining: 2 }), d({ policy: 'b', remaining: 1 })])?.policy,
    ).toBe('b');
    expect(
      mostRestrictive([d({ policy: 'a', resetMs: 1 }), d({ policy: 'b', resetMs: 9 })])?.policy,
    ).toBe('b');
  });
});

describe('toSeconds (Retry-After and RateLimit-Reset)', () => {
  it.each([
    [0, 0],
    [1, 1],
    [499, 1],
    [500, 1],
    [999, 1],
    [1_000, 1],
    [1_001, 2],
    [1_499, 2],
    [59_001, 60],
  ])('%d ms is %d s: rounded up, so a client never retries too early', (ms, seconds) => {
    expect(toSeconds(ms)).toBe(seconds);
  });

  it('never tells a rejected client to retry after 0 s', () => {
    for (const ms of [1, 200, 499]) expect(toSeconds(ms)).toBeGreaterThanOrEqual(1);
  });
});

describe('rateLimitHeaders', () => {
  const decision = d({ policy: 'login', limit: 5, remaining: 2, resetMs: 1_400 });

  it('standard: RateLimit-Limit, -Remaining and -Reset in whole seconds, rounded up', () => {
    expect(rateLimitHeaders('standard', decision)).toEqual([
      ['RateLimit-Limit', '5'],
      ['RateLimit-Remaining', '2'],
      ['RateLimit-Reset', '2'],
    ]);
  });

  it('standard: a reset 1 ms away is 1 s, not 0 s', () => {
    expect(rateLimitHeaders('standard', d({ resetMs: 1 }))).toContainEqual([
      'RateLimit-Reset',
      '1',
    ]);
  });

  it('ietf-draft: RateLimit-Policy and RateLimit structured fields with the policy name quoted', () => {
    expect(rateLimitHeaders('ietf-draft', decision)).toEqual([
      ['RateLimit-Policy', '"login";q=5'],
      ['RateLimit', '"login";r=2;t=2'],
    ]);
  });

  it('ietf-draft: a name with a quote stays one String item', () => {
    const [[, policy]] = rateLimitHeaders('ietf-draft', d({ policy: 'a"b', limit: 1 }));
    expect(policy).toBe('"a\\"b";q=1');
  });

  it('none: no header at all', () => {
    expect(rateLimitHeaders('none', decision)).toEqual([]);
  });
});

describe('verdictHeaders (the guard and the shedder write these)', () => {
  const rejecting = d({ allowed: false, remaining: 0, reason: 'limit', retryAfterMs: 2_001 });
  const verdict = (decision: RateLimitDecision) => ({
    allowed: decision.allowed,
    decisions: [decision],
    source: 'redis' as const,
  });

  it('adds Retry-After, in whole seconds rounded up, to a rejection', () => {
    expect(verdictHeaders('standard', verdict(rejecting), rejecting)).toEqual([
      ['RateLimit-Limit', '5'],
      ['RateLimit-Remaining', '0'],
      ['RateLimit-Reset', '1'],
      ['Retry-After', '3'],
    ]);
    expect(verdictHeaders('none', verdict(rejecting), rejecting)).toEqual([['Retry-After', '3']]);
  });

  it('has no Retry-After for an admission, nor for a rejection that waiting does not end', () => {
    const admitted = d({});
    expect(verdictHeaders('standard', verdict(admitted), admitted)).toHaveLength(3);
    const never = { ...rejecting, reason: 'denied' as const, retryAfterMs: 0 };
    expect(verdictHeaders('standard', verdict(never), never)).toHaveLength(3);
  });
});
