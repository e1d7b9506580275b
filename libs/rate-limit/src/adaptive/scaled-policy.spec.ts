import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { scaledPolicy } from './scaled-policy';

const policy = (over: Partial<RateLimitPolicy>): RateLimitPolicy => ({
  name: 'p',
  algo: 'token-bucket',
  limit: 100,
  windowMs: 60_000,
  burst: 40,
  blockForMs: 0,
  mode: 'enforce',
  enabled: true,
  ...over,
});

describe('scaledPolicy', () => {
  it('scales the limit and the burst alike and leaves the configured policy as it was', () => {
    const configured = policy({});
    expect(scaledPolicy(configured, 0.25)).toEqual({ ...configured, limit: 25, burst: 10 });
    expect(configured).toMatchObject({ limit: 100, burst: 40 });
  });

  it('never goes below 1, nor above the largest valid threshold', () => {
    expect(scaledPolicy(policy({ limit: 3, burst: 3 }), 0.1)).toMatchObject({ limit: 1, burst: 1 });
    expect(scaledPolicy(policy({ limit: 900_000_000, burst: 900_000_000 }), 1.5)).toMatchObject({
      limit: 1_000_000_000,
      burst: 1_000_000_000,
    });
    // A sliding log keeps one entry per request: its boost stops at 10,000.
    expect(
      scaledPolicy(policy({ algo: 'sliding-window', limit: 8_000, burst: 8_000 }), 1.5),
    ).toMatchObject({ limit: 10_000 });
  });
});
