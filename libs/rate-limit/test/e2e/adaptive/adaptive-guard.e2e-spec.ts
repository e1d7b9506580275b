/**
 * Adaptive protection through the guard of a fixture app on a real Redis, with scripted load
 * signals (the module's ADAPTIVE_LOAD_SOURCE seam) so an overload comes on demand without
 * burning the CPU the test runs on: the local loop sheds the lowest tier and never the exempt
 * one, says so in the 429 and its headers, lets go when the load does; the fleet loop lowers
 * the effective limit in the headers; shadow rejects nothing and counts what it would have.
 * Whole-fleet behaviour (three processes, an open-loop generator) is for the load tests.
 */
import type { ExecutionContext, INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { AdaptiveOptions } from '../../../src/adaptive/adaptive-options';
import type { LoadSignals } from '../../../src/adaptive/pressure';
import { RateLimitMetrics } from '../../../src/metrics/rate-limit-metrics';
import { AdaptiveLimits } from '../../../src/runtime/adaptive/adaptive-limits.service';
import { ADAPTIVE_LOAD_SOURCE } from '../../../src/runtime/adaptive/load-source';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { windowWithoutBoundary } from '../../support/window-headroom';
import { ADMIN_AUTH, createFixtureApp, PATIENT_TIMEOUT_MS } from '../fixtures/fixture-app';
import { limitedController } from '../fixtures/limited-controller';

const IDLE: LoadSignals = { elu: 0.1, eventLoopDelayMs: 1, heap: 0.1, tickLatenessMs: 0 };
/** Event-loop delay 6x its 50 ms target: an emergency, acted on even during the warm-up. */
const OVERLOADED: LoadSignals = { ...IDLE, elu: 1, eventLoopDelayMs: 300 };

const TIERS: AdaptiveOptions['tiers'] = [
  { name: 'free', floor: 0.2 },
  { name: 'pro', exempt: true },
];

/** 1,000 a window per client: nothing here is rejected by its configured limit. */
const ROUTES = limitedController('api', {
  plans: [
    {
      name: 'fx.plans',
      algo: 'sliding-window-counter',
      limit: 1_000,
      window: windowWithoutBoundary(),
      tiers: { free: { limit: 1_000 }, pro: { limit: 1_000 } },
      tier: (context: ExecutionContext) =>
        context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-plan'],
      adaptive: true,
    },
  ],
});

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(() => redis.close());

interface Running {
  app: INestApplication;
  adaptive: AdaptiveLimits;
  signals: { now: LoadSignals };
}

async function start(mode: AdaptiveOptions['mode']): Promise<Running> {
  const signals = { now: IDLE };
  const app = await createFixtureApp({
    limiter: {
      redis: redis.url,
      keyPrefix: uniquePrefix('adaptive'),
      commandTimeoutMs: PATIENT_TIMEOUT_MS,
      trustProxy: 'loopback',
      adaptive: { mode, tiers: TIERS },
    },
    controllers: [ROUTES],
    admin: true,
    overrides: [
      { provide: ADAPTIVE_LOAD_SOURCE, useValue: { sample: () => signals.now, stop: () => {} } },
    ],
  });
  return { app, adaptive: app.get(AdaptiveLimits), signals };
}

/** Ticks until `done` holds; each tick is awaited, so the bound is in ticks, not in time. */
async function ticksUntil(
  adaptive: AdaptiveLimits,
  done: () => boolean,
  max = 80,
): Promise<number> {
  for (let ticks = 0; ticks < max; ticks++) {
    if (done()) return ticks;
    await adaptive.nextTick();
  }
  throw new Error(`not reached in ${max} ticks: ${JSON.stringify(adaptive.snapshot)}`);
}

async function burst(app: INestApplication, plan: string, count: number) {
  const statuses: number[] = [];
  const shed: request.Response[] = [];
  for (let i = 0; i < count; i++) {
    const res = await request(app.getHttpServer())
      .get('/api/plans')
      .set('X-Plan', plan)
      .set('X-Forwarded-For', `198.51.100.${i % 50}`);
    statuses.push(res.status);
    if (res.status === 429) shed.push(res);
  }
  return { admitted: statuses.filter((s) => s === 200).length, shed };
}

describe('adaptive protection through the guard', () => {
  let running: Running;
  afterEach(() => running?.app.close());

  it('off (the default) runs nothing: no tick ever comes', async () => {
    running = await start('off');
    expect(running.adaptive.active).toBe(false);
    const ticked = await Promise.race([
      running.adaptive.nextTick().then(() => 'ticked'),
      new Promise((resolve) => setTimeout(resolve, 600, 'no tick')),
    ]);
    expect(ticked).toBe('no tick');
  });

  it('enforce: an overloaded instance sheds the lowest tier, never the exempt one, and lets go', async () => {
    running = await start('enforce');
    const { app, adaptive, signals } = running;
    expect((await burst(app, 'free', 20)).admitted).toBe(20);
    signals.now = OVERLOADED;
    await ticksUntil(adaptive, () => adaptive.snapshot.localLevel >= 1);
    const free = await burst(app, 'free', 40);
    const pro = await burst(app, 'pro', 40);
    expect(free.shed.length).toBeGreaterThan(0);
    expect(pro.admitted).toBe(40);
    expect(free.shed[0].body).toMatchObject({
      statusCode: 429,
      policy: 'fx.plans',
      message: expect.stringContaining('adaptive protection'),
    });
    expect(Number(free.shed[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(free.shed[0].headers['ratelimit-limit'])).toBeLessThanOrEqual(1_000);
    signals.now = IDLE;
    await ticksUntil(adaptive, () => adaptive.snapshot.localLevel === 0);
    expect((await burst(app, 'free', 20)).admitted).toBe(20);
  });

  it('enforce: the fleet loop lowers the free tier effective limit in the headers, pro keeps 1,000', async () => {
    running = await start('enforce');
    const { app, adaptive, signals } = running;
    signals.now = OVERLOADED;
    await ticksUntil(adaptive, () => (adaptive.snapshot.multipliers.free ?? 1) < 1);
    signals.now = IDLE; // the local loop lets go first; the fleet's cool-down holds the level
    await ticksUntil(adaptive, () => adaptive.snapshot.localLevel === 0);
    const multiplier = adaptive.snapshot.multipliers.free;
    const free = await request(app.getHttpServer()).get('/api/plans').set('X-Plan', 'free');
    const pro = await request(app.getHttpServer()).get('/api/plans').set('X-Plan', 'pro');
    expect(free.status).toBe(200);
    expect(Number(free.headers['ratelimit-limit'])).toBe(Math.round(1_000 * multiplier));
    expect(Number(free.headers['ratelimit-limit'])).toBeLessThan(1_000);
    expect(Number(pro.headers['ratelimit-limit'])).toBe(1_000);
    // The turn to shedding is in the audit log, with the signal behind it.
    const audit = await request(app.getHttpServer())
      .get('/admin/audit')
      .query({ policy: '(adaptive)' })
      .set(ADMIN_AUTH)
      .expect(200);
    expect(audit.body.items).toContainEqual(
      expect.objectContaining({
        policy: '(adaptive)',
        action: 'adaptive-direction',
        source: 'adaptive',
        after: expect.objectContaining({
          direction: 'shed',
          summary: expect.stringContaining('eventLoopDelayMs dominant'),
        }),
      }),
    );
  });

  it('shadow: computes and reports, rejects nothing', async () => {
    running = await start('shadow');
    const { app, adaptive, signals } = running;
    signals.now = OVERLOADED;
    await ticksUntil(adaptive, () => adaptive.snapshot.localLevel >= 1);
    expect((await burst(app, 'free', 40)).admitted).toBe(40);
    const metrics = await app.get(RateLimitMetrics).registry.metrics();
    const wouldHave = metrics.match(
      /rate_limit_adaptive_rejections_total\{tier="free",loop="local",shadow="true"\} (\d+)/,
    );
    expect(Number(wouldHave?.[1])).toBeGreaterThan(0);
  });
});
