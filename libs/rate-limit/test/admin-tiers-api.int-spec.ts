import { Controller, Get, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { RateLimitGuard } from '../src/guard/rate-limit.guard';
import { RateLimitModule } from '../src/module/rate-limit.module';
import type { PolicyView, TierView } from '../src/admin/policy-view.interface';
import { RateLimitAdminModule } from '../src/admin/rate-limit-admin.module';

const TOKEN = 'unit-admin-token-0123456789abcdef';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const HOUR = 3_600_000;
const ZERO = { allowed: 0, rejected: 0, shadowRejected: 0 };

const plan = (ctx: ExecutionContext) =>
  ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers[
    'x-plan'
  ];

@Controller('api')
class ApiController {
  // `toString` is a tier name like any other, and a member of every object's prototype.
  @Get('tiered')
  @RateLimit({
    name: 'api.tiered',
    algo: 'sliding-window',
    limit: 1,
    window: '1h',
    key: { header: 'x-client' },
    tiers: { pro: { limit: 3 }, toString: { window: '1m' } },
    tier: plan,
  })
  tiered() {
    return 'ok';
  }

  @Get('capped')
  @RateLimit({ name: 'api.capped', limit: 5, window: '1m', tiers: { pro: { limit: 50_000 } } })
  capped() {
    return 'ok';
  }

  @Get('plain')
  @RateLimit({ name: 'api.plain', limit: 5, window: '1m' })
  plain() {
    return 'ok';
  }
}

const PRO: TierView = {
  name: 'pro',
  limit: 3,
  windowMs: HOUR,
  burst: 3,
  defaults: { limit: 3 },
  override: null,
  stats: ZERO,
};
const TO_STRING: TierView = {
  name: 'toString',
  limit: 1,
  windowMs: 60_000,
  burst: 1,
  defaults: { windowMs: 60_000 },
  override: null,
  stats: ZERO,
};

describe('tiers through the admin API (memory store)', () => {
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  const policy = async (name = 'api.tiered'): Promise<PolicyView> =>
    (await http().get(`/admin/policies/${name}`).set(AUTH).expect(200)).body;
  const call = (client: string, tier?: string) => {
    const req = http().get('/api/tiered').set('x-client', client);
    return tier === undefined ? req : req.set('x-plan', tier);
  };
  const patchTier = (body: object, tier = 'pro', name = 'api.tiered') =>
    http().patch(`/admin/policies/${name}/tiers/${tier}`).set(AUTH).send(body);

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimitModule.forRoot({}), RateLimitAdminModule.forRoot({ token: TOKEN })],
      controllers: [ApiController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterEach(async () => {
    await app?.close();
  });

  it('shows each tier in declaration order: effective, declared, override and its stats', async () => {
    await call('a', 'pro').expect(200);
    await call('a', 'pro').expect(200);
    await call('b').expect(200);
    await call('b').expect(429);
    const view = await policy();
    expect(view.tiers).toEqual([{ ...PRO, stats: { ...ZERO, allowed: 2 } }, TO_STRING]);
    // The policy's own counts (every request), without its tiers' a second time.
    expect(view.stats).toEqual({ allowed: 3, rejected: 1, shadowRejected: 0 });
    expect(view.override).toBeNull();
    expect((await policy('api.plain')).tiers).toEqual([]);
  });

  it("PATCH changes the tier's effective thresholds, in the view and on requests", async () => {
    const res = await patchTier({ limit: 1, window: '2h' });
    expect(res.status).toBe(200);
    const changed = { ...PRO, limit: 1, windowMs: 2 * HOUR, burst: 1 };
    const override = { limit: 1, windowMs: 2 * HOUR };
    expect(res.body.tiers).toEqual([{ ...changed, override }, TO_STRING]);
    // The tier's override is shown on the tier; the policy's own thresholds are not overridden.
    expect(res.body.override).toBeNull();
    expect(res.body.limit).toBe(1);
    expect((await policy()).tiers).toEqual(res.body.tiers);
    await call('a', 'pro').expect(200);
    await call('a', 'pro').expect(429);
  });

  it.each<[string, object, string]>([
    ['a zero limit', { limit: 0 }, 'limit must not be less than 1'],
    [
      'a sliding-window limit above 10000',
      { limit: 10_001 },
      "tier pro: limit must be at most 10000 with algo 'sliding-window'",
    ],
    ['an algo (the policy owns it)', { algo: 'gcra' }, 'property algo should not exist'],
    ['nothing to change', {}, 'body must set at least one of limit, window, windowMs, burst'],
  ])(
    'an invalid tier PATCH (%s) answers 400 and changes nothing',
    async (_label, body, message) => {
      await patchTier({ limit: 2 }).expect(200);
      const before = await policy();
      const res = await patchTier(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toEqual(expect.arrayContaining([expect.stringContaining(message)]));
      expect(await policy()).toEqual(before);
    },
  );

  it("DELETE the tier's override reverts it to its declared thresholds, the policy's stays", async () => {
    await http().patch('/admin/policies/api.tiered').set(AUTH).send({ limit: 2 }).expect(200);
    await patchTier({ limit: 7, burst: 9 }).expect(200);
    await patchTier({ window: '5m' }, 'toString').expect(200);
    const res = await http().delete('/admin/policies/api.tiered/tiers/pro/override').set(AUTH);
    expect(res.status).toBe(200);
    expect(res.body.tiers).toEqual([
      PRO,
      { ...TO_STRING, limit: 2, burst: 2, windowMs: 300_000, override: { windowMs: 300_000 } },
    ]);
    expect(res.body.limit).toBe(2);
    expect(res.body.override).toEqual({ limit: 2, updatedAt: expect.any(Number) });
    expect(await policy()).toEqual(res.body);
  });

  it("DELETE of a tier's override answers 400 when the declared tier breaks the policy as it is now", async () => {
    await patchTier({ limit: 5_000 }, 'pro', 'api.capped').expect(200);
    await http()
      .patch('/admin/policies/api.capped')
      .set(AUTH)
      .send({ algo: 'sliding-window' })
      .expect(200);
    const before = await policy('api.capped');
    expect(before.algo).toBe('sliding-window');
    expect(before.tiers[0]).toMatchObject({
      name: 'pro',
      limit: 5_000,
      override: { limit: 5_000 },
    });
    // Back to its declared 50000, the tier would be above the sliding-window cap.
    const res = await http().delete('/admin/policies/api.capped/tiers/pro/override').set(AUTH);
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual([
      expect.stringMatching(
        /^tier pro: limit must be at most 10000 with algo 'sliding-window'.*\(got 50000\)/,
      ),
    ]);
    expect(await policy('api.capped')).toEqual(before);
  });

  it('answers 404 for an unknown policy or tier', async () => {
    const unknownPolicy = await patchTier({ limit: 2 }, 'pro', 'nope');
    expect(unknownPolicy.status).toBe(404);
    expect(unknownPolicy.body.message).toBe('Unknown rate limit policy "nope"');
    for (const tier of ['gold', '__proto__', 'hasOwnProperty']) {
      const unknownTier = await patchTier({ limit: 2 }, tier);
      expect(unknownTier.status).toBe(404);
      expect(unknownTier.body.message).toBe(
        `Rate limit policy "api.tiered" declares no tier "${tier}"`,
      );
    }
    await http().delete('/admin/policies/api.tiered/tiers/gold/override').set(AUTH).expect(404);
    await http().delete('/admin/policies/nope/tiers/pro/override').set(AUTH).expect(404);
    expect((await policy()).tiers).toEqual([PRO, TO_STRING]);
  });

  it('answers 401 without the token', async () => {
    await http().patch('/admin/policies/api.tiered/tiers/pro').send({ limit: 2 }).expect(401);
    await http().delete('/admin/policies/api.tiered/tiers/pro/override').expect(401);
    expect((await policy()).tiers).toEqual([PRO, TO_STRING]);
  });
});
