import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { UnknownPolicyError } from '../src/errors/unknown-policy.error';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { PolicyRegistry } from '../src/registry/policy-registry';
import { RateLimiterService } from '../src/service/rate-limiter.service';

describe('RateLimiterService tier option (memory store)', () => {
  let app: INestApplication;
  let limiter: RateLimiterService;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        RateLimitModule.forRoot({
          policies: [
            {
              name: 'api',
              algo: 'token-bucket',
              limit: 2,
              window: '1h',
              tiers: { pro: { limit: 5 }, wide: { burst: 8 } },
            },
          ],
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    limiter = app.get(RateLimiterService);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("consumes with the tier's thresholds and names the tier in the decision", async () => {
    expect(await limiter.consume('api', 'user:pro', 1, { tier: 'pro' })).toMatchObject({
      policy: 'api',
      allowed: true,
      limit: 5,
      remaining: 4,
      tier: 'pro',
    });
    expect(await limiter.consume('api', 'user:wide', 3, { tier: 'wide' })).toMatchObject({
      allowed: true,
      limit: 8,
      remaining: 5,
      tier: 'wide',
    });
  });

  it("admits up to the tier's capacity and rejects past it", async () => {
    expect((await limiter.consume('api', 'user:full', 5, { tier: 'pro' })).allowed).toBe(true);
    expect(await limiter.consume('api', 'user:full', 1, { tier: 'pro' })).toMatchObject({
      allowed: false,
      reason: 'limit',
      limit: 5,
      tier: 'pro',
    });
  });

  it.each([
    ['no tier', undefined],
    ['an undeclared tier', 'platinum'],
    ['a prototype name', 'constructor'],
  ])("consumes with the policy's own thresholds given %s", async (_, tier) => {
    const identity = `user:own-${String(tier)}`;
    const decision = await limiter.consume('api', identity, 1, { tier });
    expect(decision).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(decision).not.toHaveProperty('tier');
  });

  it("peeks with the tier's thresholds without charging", async () => {
    await limiter.consume('api', 'user:peek', 2, { tier: 'pro' });
    expect(await limiter.peek('api', 'user:peek', { tier: 'pro' })).toMatchObject({
      allowed: true,
      limit: 5,
      remaining: 3,
      tier: 'pro',
    });
    expect((await limiter.peek('api', 'user:peek', { tier: 'pro' })).remaining).toBe(3);
    // One state for the policy and its tiers: 3 tokens left, capped at the policy's burst of 2.
    expect(await limiter.peek('api', 'user:peek', { tier: 'platinum' })).toMatchObject({
      limit: 2,
      remaining: 2,
    });
  });

  it("follows the tier's override at once", async () => {
    const registry = app.get(PolicyRegistry);
    expect(registry.applyOverride('api', { tiers: { pro: { limit: 9 } } })).toBeUndefined();
    try {
      expect(await limiter.consume('api', 'user:overridden', 1, { tier: 'pro' })).toMatchObject({
        limit: 9,
        remaining: 8,
      });
    } finally {
      registry.applyOverride('api', null);
    }
  });

  it('refuses an unknown policy, with or without a tier', async () => {
    await expect(limiter.consume('nope', 'user:x', 1, { tier: 'pro' })).rejects.toThrow(
      new UnknownPolicyError('nope'),
    );
    await expect(limiter.peek('nope', 'user:x', { tier: 'pro' })).rejects.toThrow(
      UnknownPolicyError,
    );
  });
});
