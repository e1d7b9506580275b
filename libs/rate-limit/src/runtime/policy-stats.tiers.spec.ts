import { resolveModuleOptions } from '../config/resolve-module-options';
import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import type { RedisConnection } from '../store/redis/redis-connection';
import { PolicyStats } from './policy-stats.service';

const decision = (over: Partial<RateLimitDecision>): RateLimitDecision => ({
  policy: 'api',
  allowed: true,
  shadow: false,
  limit: 5,
  remaining: 4,
  resetMs: 1_000,
  retryAfterMs: 0,
  source: 'memory',
  ...over,
});

const verdict = (allowed: boolean, ...decisions: RateLimitDecision[]): RateLimitVerdict => ({
  allowed,
  decisions,
  source: 'memory',
});

const rejected = (over: Partial<RateLimitDecision>) =>
  decision({ allowed: false, remaining: 0, retryAfterMs: 500, reason: 'limit', ...over });

const ZERO = { allowed: 0, rejected: 0, shadowRejected: 0 };

describe('PolicyStats tier totals without Redis', () => {
  let stats: PolicyStats;

  beforeEach(() => {
    const noRedis = { client: undefined } as unknown as RedisConnection;
    stats = new PolicyStats(resolveModuleOptions({}), noRedis);
    stats.onApplicationBootstrap();
  });
  afterEach(async () => {
    await stats.onModuleDestroy();
  });

  it("counts each decision in its policy's totals and in its tier's", async () => {
    stats.observe(verdict(true, decision({ tier: 'pro' })));
    stats.observe(verdict(true, decision({ tier: 'pro' })));
    stats.observe(verdict(false, rejected({ tier: 'pro' })));
    stats.observe(verdict(true, decision({ tier: 'free' })));
    stats.observe(verdict(true, decision({})));
    stats.observe(verdict(false, rejected({})));
    const totals = await stats.totals(['api']);
    expect(totals.get('api')).toEqual({
      allowed: 4,
      rejected: 2,
      shadowRejected: 0,
      tiers: {
        pro: { allowed: 2, rejected: 1, shadowRejected: 0 },
        free: { allowed: 1, rejected: 0, shadowRejected: 0 },
      },
    });
  });

  it('counts a shadow rejection of a tier as shadowRejected', async () => {
    stats.observe(verdict(true, rejected({ tier: 'pro', shadow: true })));
    expect((await stats.totals(['api'])).get('api')).toEqual({
      ...ZERO,
      shadowRejected: 1,
      tiers: { pro: { ...ZERO, shadowRejected: 1 } },
    });
  });

  it('counts neither way a tier that admitted a request another policy rejected', async () => {
    stats.observe(verdict(false, decision({ tier: 'pro' }), rejected({ policy: 'strict' })));
    const totals = await stats.totals(['api', 'strict']);
    expect(totals.get('api')).toEqual({ ...ZERO, tiers: {} });
    expect(totals.get('strict')).toEqual({ ...ZERO, rejected: 1, tiers: {} });
  });

  it('keeps the tiers of each policy apart, also of policies whose names share a prefix', async () => {
    stats.observe(
      verdict(
        true,
        decision({ policy: 'api', tier: 'pro' }),
        decision({ policy: 'api2', tier: 'pro' }),
      ),
    );
    stats.observe(verdict(true, decision({ policy: 'api2', tier: 'gold' })));
    const totals = await stats.totals(['api', 'api2', 'unused']);
    expect(totals.get('api')).toEqual({
      ...ZERO,
      allowed: 1,
      tiers: { pro: { ...ZERO, allowed: 1 } },
    });
    expect(totals.get('api2')).toEqual({
      ...ZERO,
      allowed: 2,
      tiers: { pro: { ...ZERO, allowed: 1 }, gold: { ...ZERO, allowed: 1 } },
    });
    expect(totals.get('unused')).toEqual({ ...ZERO, tiers: {} });
  });

  it('answers the names asked for, in order', async () => {
    stats.observe(verdict(true, decision({ policy: 'b', tier: 't' })));
    expect([...(await stats.totals(['b', 'a'])).keys()]).toEqual(['b', 'a']);
    expect((await stats.totals([])).size).toBe(0);
  });

  it('keeps tiers named like Object.prototype methods as plain counts', async () => {
    stats.observe(verdict(true, decision({ tier: 'toString' })));
    stats.observe(verdict(true, decision({ tier: 'hasOwnProperty' })));
    const tiers = (await stats.totals(['api'])).get('api')!.tiers;
    expect(Object.getOwnPropertyDescriptor(tiers, 'toString')?.value).toEqual({
      ...ZERO,
      allowed: 1,
    });
    expect(Object.getOwnPropertyDescriptor(tiers, 'hasOwnProperty')?.value).toEqual({
      ...ZERO,
      allowed: 1,
    });
  });

  it('keeps counting through a flush while no Redis is connected', async () => {
    stats.observe(verdict(true, decision({ tier: 'pro' })));
    await stats.flush();
    stats.observe(verdict(true, decision({ tier: 'pro' })));
    expect((await stats.totals(['api'])).get('api')).toEqual({
      ...ZERO,
      allowed: 2,
      tiers: { pro: { ...ZERO, allowed: 2 } },
    });
  });
});
