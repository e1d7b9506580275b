import type { RateLimitPolicy } from './rate-limit-policy.interface';
import { TIER_NAME, tierPolicy } from './tier-policy';

/** A policy whose burst differs from its limit, so that following one or the other shows. */
const BASE: RateLimitPolicy = Object.freeze({
  name: 'api',
  algo: 'token-bucket',
  limit: 10,
  windowMs: 1_000,
  burst: 20,
  blockForMs: 60_000,
  mode: 'shadow',
  enabled: false,
});

describe('tierPolicy', () => {
  it("keeps the policy's thresholds for what the tier leaves out, and names the tier", () => {
    expect(tierPolicy(BASE, 'free', {}, undefined)).toEqual({ ...BASE, tier: 'free' });
  });

  it("keeps the policy's name, algorithm, penalty, mode and state", () => {
    expect(tierPolicy(BASE, 'pro', { limit: 100, windowMs: 5, burst: 7 }, undefined)).toEqual({
      name: 'api',
      algo: 'token-bucket',
      limit: 100,
      windowMs: 5,
      burst: 7,
      blockForMs: 60_000,
      mode: 'shadow',
      enabled: false,
      tier: 'pro',
    });
  });

  it('gives a tier that sets a limit and no burst its own limit as burst', () => {
    expect(tierPolicy(BASE, 'pro', { limit: 100 }, undefined)).toMatchObject({
      limit: 100,
      burst: 100,
    });
  });

  it("keeps the policy's burst for a tier that sets only its window", () => {
    expect(tierPolicy(BASE, 'slow', { windowMs: 60_000 }, undefined)).toMatchObject({
      limit: 10,
      windowMs: 60_000,
      burst: 20,
    });
  });

  it("keeps the policy's limit for a tier that sets only its burst", () => {
    expect(tierPolicy(BASE, 'bursty', { burst: 50 }, undefined)).toMatchObject({
      limit: 10,
      burst: 50,
    });
  });

  it('lets the override win over the declaration, field by field', () => {
    const declared = { limit: 100, windowMs: 2_000, burst: 150 };
    expect(tierPolicy(BASE, 'pro', declared, { windowMs: 9_000 })).toMatchObject({
      limit: 100,
      windowMs: 9_000,
      burst: 150,
    });
    expect(tierPolicy(BASE, 'pro', declared, { limit: 5, burst: 6 })).toMatchObject({
      limit: 5,
      windowMs: 2_000,
      burst: 6,
    });
  });

  it('lets an overridden limit carry the burst when neither side sets one', () => {
    expect(tierPolicy(BASE, 'pro', { limit: 100 }, { limit: 40 })).toMatchObject({
      limit: 40,
      burst: 40,
    });
    expect(tierPolicy(BASE, 'pro', { windowMs: 5 }, { limit: 40 })).toMatchObject({
      limit: 40,
      windowMs: 5,
      burst: 40,
    });
  });

  it('keeps a declared burst when the override sets only the limit', () => {
    expect(tierPolicy(BASE, 'pro', { limit: 100, burst: 150 }, { limit: 40 })).toMatchObject({
      limit: 40,
      burst: 150,
    });
  });

  it('takes an overridden burst over the limit it would follow', () => {
    expect(tierPolicy(BASE, 'pro', { limit: 100 }, { burst: 3 })).toMatchObject({
      limit: 100,
      burst: 3,
    });
  });

  it('reads an empty override as none', () => {
    expect(tierPolicy(BASE, 'pro', { limit: 100 }, {})).toEqual(
      tierPolicy(BASE, 'pro', { limit: 100 }, undefined),
    );
  });

  it('leaves the policy and the declaration as they were', () => {
    const declared = { limit: 100 };
    tierPolicy(BASE, 'pro', declared, { burst: 3 });
    expect(declared).toEqual({ limit: 100 });
    expect(BASE).not.toHaveProperty('tier');
  });
});

describe('TIER_NAME', () => {
  it.each(['a', 'Z', '0', 'pro', 'gold_plan-2', 'x'.repeat(64)])('accepts %p', (name) => {
    expect(TIER_NAME.test(name)).toBe(true);
  });

  it.each(['', 'x'.repeat(65), 'a.b', 'a b', 'a:b', '{a}', 'é', 'a\n', '*'])(
    'refuses %p',
    (name) => {
      expect(TIER_NAME.test(name)).toBe(false);
    },
  );
});
