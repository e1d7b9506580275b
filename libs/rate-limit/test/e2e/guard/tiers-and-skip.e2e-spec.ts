/**
 * Tiers and skips over HTTP, on a fixture app with the memory store: a policy's own tier
 * resolver or the module's, synchronous or not; an unknown tier on the policy's thresholds; the
 * module's skip and a policy's own.
 */
import { Controller, Get, type ExecutionContext, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { RateLimit, RateLimiterService, type RateLimitModuleOptions } from '@app/rate-limit';
import { createFixtureApp } from '../fixtures/fixture-app';
import { WINDOW } from './guard-controllers';

const CLIENT = { header: 'x-client' } as const;

const header = (name: string) => (ctx: ExecutionContext) =>
  ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers[name];
const plan = header('x-plan');
const skipWhenAsked = (ctx: ExecutionContext) => header('x-skip')(ctx) === 'yes';
const moduleTier = jest.fn(header('x-module-tier'));
const internal = (ctx: ExecutionContext) => header('x-internal')(ctx) === 'yes';

@Controller('tiers')
class TieredController {
  @Get('sync')
  @RateLimit({
    name: 'tier-sync',
    limit: 1,
    window: WINDOW,
    key: CLIENT,
    tiers: { pro: { limit: 3 } },
    tier: plan,
  })
  sync() {
    return 'ok';
  }

  @Get('async')
  @RateLimit({
    name: 'tier-async',
    limit: 1,
    window: WINDOW,
    key: CLIENT,
    tiers: { pro: { limit: 3 } },
    tier: async (ctx) => plan(ctx),
  })
  async() {
    return 'ok';
  }

  @Get('default')
  @RateLimit({
    name: 'tier-default',
    limit: 1,
    window: WINDOW,
    key: CLIENT,
    tiers: { gold: { limit: 2 } },
  })
  byDefault() {
    return 'ok';
  }

  @Get('untiered')
  @RateLimit({ name: 'untiered', limit: 1, window: WINDOW, key: CLIENT })
  untiered() {
    return 'ok';
  }

  @Get('skip')
  @RateLimit({ name: 'skippable', limit: 1, window: WINDOW, key: CLIENT, skip: skipWhenAsked })
  @RateLimit({ name: 'kept', limit: 2, window: WINDOW, key: CLIENT })
  skip() {
    return 'ok';
  }

  @Get('skip-async')
  @RateLimit({
    name: 'skippable-async',
    limit: 1,
    window: WINDOW,
    key: CLIENT,
    skip: async (ctx) => skipWhenAsked(ctx),
  })
  skipAsync() {
    return 'ok';
  }
}

function createApp(limiter: RateLimitModuleOptions): Promise<INestApplication> {
  return createFixtureApp({ limiter, controllers: [TieredController] });
}

/** The RateLimit-Limit and RateLimit-Remaining headers of each of `count` requests. */
async function limits(get: () => request.Test, count: number): Promise<[number, string, string][]> {
  const out: [number, string, string][] = [];
  for (let i = 0; i < count; i++) {
    const res = await get();
    out.push([res.status, res.headers['ratelimit-limit'], res.headers['ratelimit-remaining']]);
  }
  return out;
}

describe('RateLimitGuard with tiers and skip (synchronous module resolvers)', () => {
  let app: INestApplication;
  const get =
    (path: string, client: string, headers: Record<string, string> = {}) =>
    () =>
      request(app.getHttpServer())
        .get(path)
        .set({ 'x-client': client, ...headers });

  beforeAll(async () => {
    app = await createApp({ tier: moduleTier, skip: internal });
  });
  afterAll(async () => {
    await app?.close();
  });

  it.each(['sync', 'async'])(
    'takes the tier a %s resolver names, showing its limit',
    async (kind) => {
      expect(await limits(get(`/tiers/${kind}`, `${kind}-pro`, { 'x-plan': 'pro' }), 4)).toEqual([
        [200, '3', '2'],
        [200, '3', '1'],
        [200, '3', '0'],
        [429, '3', '0'],
      ]);
      const rejected = await get(`/tiers/${kind}`, `${kind}-pro`, { 'x-plan': 'pro' })();
      expect(rejected.body).toMatchObject({ policy: `tier-${kind}`, message: 'Too Many Requests' });
    },
  );

  it.each([
    ['no tier', {}],
    ['an unknown tier', { 'x-plan': 'platinum' }],
    ["the module's tier instead of its own", { 'x-module-tier': 'pro' }],
  ])("gives a request naming %s the policy's own thresholds", async (_, headers) => {
    const client = `own-${JSON.stringify(headers)}`;
    expect(await limits(get('/tiers/sync', client, headers), 2)).toEqual([
      [200, '1', '0'],
      [429, '1', '0'],
    ]);
  });

  it("takes the module's tier for a policy with tiers and no resolver of its own", async () => {
    expect(await limits(get('/tiers/default', 'gold', { 'x-module-tier': 'gold' }), 3)).toEqual([
      [200, '2', '1'],
      [200, '2', '0'],
      [429, '2', '0'],
    ]);
    expect(await limits(get('/tiers/default', 'plain'), 1)).toEqual([[200, '1', '0']]);
  });

  it("never asks the module's resolver about a policy without tiers", async () => {
    moduleTier.mockClear();
    await get('/tiers/untiered', 'untiered', { 'x-module-tier': 'gold' })().expect(200);
    expect(moduleTier).not.toHaveBeenCalled();
    await get('/tiers/default', 'asked', { 'x-module-tier': 'none' })().expect(200);
    expect(moduleTier).toHaveBeenCalledTimes(1);
  });

  it('skips every policy of a request the module skip answers true for: no headers, no count', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get('/tiers/sync', 'internal', { 'x-internal': 'yes' })().expect(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
      expect(res.headers['ratelimit-remaining']).toBeUndefined();
    }
    expect(await limits(get('/tiers/sync', 'internal', { 'x-internal': 'no' }), 1)).toEqual([
      [200, '1', '0'],
    ]);
  });

  it('skips only the policy whose own skip answers true', async () => {
    const limiter = app.get(RateLimiterService);
    expect(await limits(get('/tiers/skip', 'skip', { 'x-skip': 'yes' }), 3)).toEqual([
      [200, '2', '1'],
      [200, '2', '0'],
      [429, '2', '0'],
    ]);
    expect((await limiter.peek('skippable', 'h:x-client:skip')).remaining).toBe(1);
    expect(await limits(get('/tiers/skip', 'no-skip'), 1)).toEqual([[200, '1', '0']]);
  });

  it('waits for an asynchronous policy skip', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get('/tiers/skip-async', 'skip-async', { 'x-skip': 'yes' })().expect(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    expect(await limits(get('/tiers/skip-async', 'skip-async'), 2)).toEqual([
      [200, '1', '0'],
      [429, '1', '0'],
    ]);
  });
});

describe('RateLimitGuard with asynchronous module skip and tier', () => {
  let app: INestApplication;
  const get =
    (path: string, client: string, headers: Record<string, string> = {}) =>
    () =>
      request(app.getHttpServer())
        .get(path)
        .set({ 'x-client': client, ...headers });

  beforeAll(async () => {
    app = await createApp({
      tier: async (ctx) => header('x-module-tier')(ctx),
      skip: async (ctx) => internal(ctx),
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('skips a request the asynchronous module skip answers true for', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get('/tiers/sync', 'internal', { 'x-internal': 'yes' })().expect(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    expect(await limits(get('/tiers/sync', 'internal'), 2)).toEqual([
      [200, '1', '0'],
      [429, '1', '0'],
    ]);
  });

  it('takes the tier the asynchronous module resolver names', async () => {
    expect(await limits(get('/tiers/default', 'gold', { 'x-module-tier': 'gold' }), 3)).toEqual([
      [200, '2', '1'],
      [200, '2', '0'],
      [429, '2', '0'],
    ]);
  });
});
