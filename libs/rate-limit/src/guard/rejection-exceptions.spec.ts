import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { RejectionExceptions } from './rejection-exceptions';

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

describe('RejectionExceptions', () => {
  it('answers 429 with the body of the spec and no stack trace', () => {
    const exception = new RejectionExceptions().exceptionFor(rejected());
    expect(exception.getStatus()).toBe(429);
    expect(exception.getResponse()).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'api',
      retryAfter: 3,
    });
    expect(exception.stack?.split('\n')).toHaveLength(1);
  });

  it('reuses one exception per policy, reason, capacity and retry second', () => {
    const exceptions = new RejectionExceptions();
    const first = exceptions.exceptionFor(rejected());
    expect(exceptions.exceptionFor(rejected({ retryAfterMs: 2_100 }))).toBe(first);
    expect(exceptions.exceptionFor(rejected({ retryAfterMs: 3_100 }))).not.toBe(first);
    expect(exceptions.exceptionFor(rejected({ policy: 'other' }))).not.toBe(first);
    const blocked = exceptions.exceptionFor(rejected({ reason: 'blocked' }));
    expect(blocked.getResponse()).toMatchObject({
      message: 'Too Many Requests: temporarily blocked',
    });
    const never = exceptions.exceptionFor(
      rejected({ reason: 'cost-exceeds-capacity', retryAfterMs: 0, limit: 7 }),
    );
    expect(never.getResponse()).toMatchObject({ retryAfter: 0 });
    expect((never.getResponse() as { message: string }).message).toContain('(7)');
  });
});
