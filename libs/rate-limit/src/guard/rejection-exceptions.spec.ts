import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { rejectionBody, rejectionException } from './rejection-exceptions';

const rejected = (overrides: Partial<RateLimitDecision> = {}): RateLimitDecision => ({
  policy: 'api',
  allowed: false,
  shadow: false,
  limit: 5,
  remaining: 0,
  resetMs: 9_000,
  retryAfterMs: 2_500,
  reason: 'limit',
  source: 'redis',
  ...overrides,
});

describe('rejectionException', () => {
  it('answers 429 with the body of the spec and no stack trace', () => {
    const exception = rejectionException(rejected());
    expect(exception.getStatus()).toBe(429);
    expect(exception.getResponse()).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'api',
      retryAfter: 3,
    });
    expect(exception.stack?.split('\n')).toHaveLength(1);
  });

  it('gives every rejection its own body, so a filter adding request data leaks nothing', () => {
    const first = rejectionException(rejected());
    const second = rejectionException(rejected());
    expect(second).not.toBe(first);
    (first.getResponse() as Record<string, unknown>).user = 'alice';
    expect(second.getResponse()).not.toHaveProperty('user');
  });

  it('words blocked and never-admissible rejections', () => {
    expect(rejectionException(rejected({ reason: 'blocked' })).getResponse()).toMatchObject({
      message: 'Too Many Requests: temporarily blocked',
    });
    const never = rejectionException(
      rejected({ reason: 'cost-exceeds-capacity', retryAfterMs: 0, limit: 7 }),
    );
    expect(never.getResponse()).toMatchObject({ retryAfter: 0 });
    expect((never.getResponse() as { message: string }).message).toContain('(7)');
  });
});

describe('rejectionBody (what the shedder sends)', () => {
  it.each<[string, Partial<RateLimitDecision>]>([
    ['over the limit', {}],
    ['blocked', { reason: 'blocked', retryAfterMs: 60_000 }],
    ['denied by a client override', { reason: 'denied', message: 'Banned', retryAfterMs: 0 }],
    ['above capacity', { reason: 'cost-exceeds-capacity', retryAfterMs: 0 }],
  ])('is the exception body byte for byte when %s', (_what, overrides) => {
    const decision = rejected(overrides);
    expect(JSON.stringify(rejectionBody(decision))).toBe(
      JSON.stringify(rejectionException(decision).getResponse()),
    );
  });
});
