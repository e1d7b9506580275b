/**
 * The local loop's drops answered before routing by shedRememberedRejections(): on a route whose
 * tier is named by a header, every drop after the guard's first is answered by the shedder
 * (the app's exception filter sees one), with the guard's adaptive 429; a request the shedder
 * lets through is not counted against the drop share a second time by the guard; a route whose
 * tier is a function is left to the guard. Scripted load signals (ADAPTIVE_LOAD_SOURCE), a real
 * Redis; on Express and (e2e-fastify) on Fastify.
 */
import {
  Catch,
  Controller,
  Get,
  UseFilters,
  type ArgumentsHost,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import request from 'supertest';
import { RateLimit } from '@app/rate-limit';
import { shedRememberedRejections } from '@app/rate-limit/shedder';
import type { LoadSignals } from '../../../src/adaptive/pressure';
import { AdaptiveLimits } from '../../../src/runtime/adaptive/adaptive-limits.service';
import { ADAPTIVE_LOAD_SOURCE } from '../../../src/runtime/adaptive/load-source';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { windowWithoutBoundary } from '../../support/window-headroom';
import { createFixtureApp, PATIENT_TIMEOUT_MS } from '../fixtures/fixture-app';

const IDLE: LoadSignals = { elu: 0.1, eventLoopDelayMs: 1, heap: 0.1, tickLatenessMs: 0 };
/** Utilisation 1.25x its 0.75 target: the local loop rises by steps below its largest. */
const OVER: LoadSignals = { ...IDLE, elu: 0.9375 };
/** 0.9x target: inside the dead band, where the level holds whatever it reached. */
const HOLD: LoadSignals = { ...IDLE, elu: 0.675 };

/** 1,000 a window per client: nothing here is rejected by its configured limit. */
const PLAN = {
  algo: 'sliding-window-counter',
  limit: 1_000,
  window: windowWithoutBoundary(),
  tiers: { free: { limit: 1_000 }, pro: { limit: 1_000 } },
  adaptive: true,
} as const;

const seen = { filter: 0 };

@Catch()
class CountingFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    seen.filter++;
    super.catch(exception, host);
  }
}

@Controller('plans')
@UseFilters(CountingFilter)
class PlansController {
  @Get('by-header')
  @RateLimit({ name: 'as.header', ...PLAN, tier: { header: 'x-plan' } })
  byHeader(): string {
    return 'ok';
  }

  @Get('by-function')
  @RateLimit({
    name: 'as.function',
    ...PLAN,
    tier: (context: ExecutionContext) =>
      context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-plan'],
  })
  byFunction(): string {
    return 'ok';
  }
}

let redis: TestRedis;
let app: INestApplication;
let adaptive: AdaptiveLimits;
const signals = { now: IDLE };
let ips = 0;

beforeAll(async () => {
  redis = await startTestRedis();
  app = await createFixtureApp({
    limiter: {
      redis: redis.url,
      keyPrefix: uniquePrefix('adaptive-shed'),
      commandTimeoutMs: PATIENT_TIMEOUT_MS,
      trustProxy: 'loopback',
      adaptive: {
        mode: 'enforce',
        tiers: [
          { name: 'free', floor: 0.2 },
          { name: 'pro', exempt: true },
        ],
      },
    },
    controllers: [PlansController],
    overrides: [
      {
        provide: ADAPTIVE_LOAD_SOURCE,
        // Warm from the start: pressures below an emergency count at once.
        useValue: { sample: () => signals.now, stop: () => {}, uptimeMs: () => 60_000 },
      },
    ],
    beforeInit: (nest) => shedRememberedRejections(nest),
  });
  adaptive = app.get(AdaptiveLimits);
});
afterAll(async () => {
  await app?.close();
  await redis?.close();
});

async function ticksUntil(done: () => boolean, max = 80): Promise<void> {
  for (let ticks = 0; ticks < max; ticks++) {
    if (done()) return;
    await adaptive.nextTick();
  }
  throw new Error(`not reached in ${max} ticks: ${JSON.stringify(adaptive.snapshot)}`);
}

/** `n` requests of one plan, each from a client of its own; statuses and the filter's count. */
async function send(path: string, plan: string, n: number) {
  const before = seen.filter;
  const statuses: number[] = [];
  const bodies: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const ip = `198.51.100.${++ips % 250}`;
    const res = await request(app.getHttpServer())
      .get(path)
      .set('X-Plan', plan)
      .set('X-Forwarded-For', ip);
    statuses.push(res.status);
    if (res.status === 429) bodies.push(res.body);
  }
  return {
    dropped: statuses.filter((s) => s === 429).length,
    admitted: statuses.filter((s) => s === 200).length,
    filter: seen.filter - before,
    bodies,
  };
}

describe('adaptive drops before routing', () => {
  it('drops at the share the local loop sets, counted once, the guard seeing only the first', async () => {
    signals.now = OVER;
    await ticksUntil(() => adaptive.snapshot.localLevel >= 0.3);
    signals.now = HOLD;
    // Smoothed pressure settles into the dead band: the level stops moving there.
    let level = -1;
    await ticksUntil(() => {
      const same = adaptive.snapshot.localLevel === level;
      level = adaptive.snapshot.localLevel;
      return same;
    });
    expect(level).toBeGreaterThan(0.3);
    expect(level).toBeLessThan(1);

    const free = await send('/plans/by-header', 'free', 60);
    expect(adaptive.snapshot.localLevel).toBe(level);
    // A tier at share s loses exactly floor(n x s) of n (a running credit from 0); counted
    // twice (shedder, then guard), it would lose about twice that.
    expect(free.dropped).toBe(Math.floor(60 * level + 1e-9));
    // The first drop came from the guard (it taught the shedder the route); the rest did not
    // reach the app's filter.
    expect(free.filter).toBe(1);
    for (const body of free.bodies) {
      expect(body).toMatchObject({
        statusCode: 429,
        policy: 'as.header',
        message: expect.stringContaining('adaptive protection'),
      });
    }
    expect((await send('/plans/by-header', 'pro', 20)).admitted).toBe(20);
  });

  it('leaves a route whose tier is a function to the guard', async () => {
    signals.now = OVER;
    await ticksUntil(() => adaptive.snapshot.localLevel >= 1);
    const free = await send('/plans/by-function', 'free', 20);
    expect(free.dropped).toBe(20);
    expect(free.filter).toBe(20);
    signals.now = IDLE;
    await ticksUntil(() => adaptive.snapshot.localLevel === 0);
    expect((await send('/plans/by-header', 'free', 20)).admitted).toBe(20);
  });
});
