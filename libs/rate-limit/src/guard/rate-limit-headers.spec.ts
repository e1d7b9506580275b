import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { mostRestrictive } from './rate-limit-headers';

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

  it('otherwise the fewest units left, then the latest reset', () => {
    expect(
      mostRestrictive([d({ policy: 'a', remaining: 2 }), d({ policy: 'b', remaining: 1 })])?.policy,
    ).toBe('b');
    expect(
      mostRestrictive([d({ policy: 'a', resetMs: 1 }), d({ policy: 'b', resetMs: 9 })])?.policy,
    ).toBe('b');
  });
});
