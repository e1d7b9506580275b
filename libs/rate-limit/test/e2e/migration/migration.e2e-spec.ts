/**
 * docs/guide/migrating-from-throttler.md, tested: its worked example before (@nestjs/throttler,
 * in-memory storage, `before/`) and after (this library on a real Redis, `after/`) answer the way
 * the guide says. Both limit the same routes the same way; the differences it lists are
 * observable: other header names, the 429's body, a rejected request charges nothing (the
 * throttler's first one counts and blocks for `ttl`), and a fixed window is aligned to the epoch
 * (a daily one resets at 00:00 UTC) where the throttler's starts at the client's first request.
 *
 * The guide's code blocks are these files (tools/docs-snippets.spec.ts holds them byte for byte,
 * `@app/rate-limit` spelled `nest-redis-rate-limit`). Their windows are a minute and a day: the
 * counted routes are sliding windows (no boundary to straddle), and the daily fixed window is
 * only read, never counted to its limit.
 */
import type { INestApplication, Type } from '@nestjs/common';
import { getStorageToken, type ThrottlerStorageService } from '@nestjs/throttler';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import request from 'supertest';
import { untilReady } from '../../support/redis-readiness';
import { startTestRedis, type TestRedis } from '../../support/redis-test-server';
import { E2E_PLATFORM, fixtureAdapter } from '../fixtures/fixture-app';
import type { AppModule as AfterModule } from './after/app.module';
import type { AppModule as BeforeModule } from './before/app.module';

const DAY_S = 86_400;

async function boot(appModule: Type): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [appModule] }).compile();
  const app = moduleRef.createNestApplication(fixtureAdapter(), { logger: false });
  await app.init();
  if (E2E_PLATFORM === 'fastify') {
    await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
  }
  return app;
}

/** Seconds to the end of the epoch-aligned day, for every ms in [from, to]. */
function secondsToUtcMidnight(from: number, to: number): Set<number> {
  const seen = new Set<number>();
  for (let t = from; t <= to; t++) {
    const end = (Math.floor(t / (DAY_S * 1000)) + 1) * DAY_S * 1000;
    seen.add(Math.ceil((end - t) / 1000));
  }
  return seen;
}

describe('migrating from @nestjs/throttler: the guide example before and after', () => {
  let redis: TestRedis;
  let client: Redis;
  let before: INestApplication;
  let after: INestApplication;

  beforeAll(async () => {
    redis = await startTestRedis();
    // The example's own keys (prefix 'rl'): a Redis REDIS_URL shares between the Express and
    // Fastify projects gets a database of each platform's own.
    const url = redis.owned ? redis.url : `${redis.url}/${E2E_PLATFORM === 'fastify' ? 1 : 0}`;
    process.env.REDIS_URL = url;
    client = new Redis(url);
    // The modules read REDIS_URL when they are declared, so they load after it is set.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { AppModule: Before } = require('./before/app.module') as {
      AppModule: typeof BeforeModule;
    };
    const { AppModule: After } = require('./after/app.module') as { AppModule: typeof AfterModule };
    /* eslint-enable @typescript-eslint/no-require-imports */
    before = await boot(Before);
    after = await boot(After);
    await untilReady(after);
  });
  afterAll(async () => {
    await before?.close();
    await after?.close();
    client?.disconnect();
    await redis?.close();
  });

  const send = (app: INestApplication, method: 'get' | 'post', path: string, times: number) =>
    (async () => {
      const answers: request.Response[] = [];
      for (let i = 0; i < times; i++)
        answers.push(await request(app.getHttpServer())[method](path));
      return answers;
    })();

  it('both limit GET /cats (the module-wide limit) to 10 a minute, with their own headers and body', async () => {
    const throttler = await send(before, 'get', '/cats', 12);
    const limiter = await send(after, 'get', '/cats', 12);
    const statuses = [...Array(10).fill(200), 429, 429];
    expect(throttler.map((r) => r.status)).toEqual(statuses);
    expect(limiter.map((r) => r.status)).toEqual(statuses);

    expect(throttler[0].headers).toMatchObject({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '9',
      'x-ratelimit-reset': '60',
    });
    expect(throttler[0].headers['ratelimit-limit']).toBeUndefined();
    expect(limiter[0].headers).toMatchObject({
      'ratelimit-limit': '10',
      'ratelimit-remaining': '9',
      'ratelimit-reset': '60',
    });
    expect(limiter[0].headers['x-ratelimit-limit']).toBeUndefined();

    // The 429: the throttler's has Retry-After and no X-RateLimit-*; this library's keeps its
    // RateLimit-* headers, and its body names the policy and the wait.
    expect(throttler[10].headers['retry-after']).toBe('60');
    expect(throttler[10].headers['x-ratelimit-limit']).toBeUndefined();
    expect(throttler[10].body).toEqual({
      statusCode: 429,
      message: 'Too many requests, slow down',
    });
    expect(limiter[10].headers).toMatchObject({
      'retry-after': '60',
      'ratelimit-limit': '10',
      'ratelimit-remaining': '0',
    });
    expect(limiter[10].body).toEqual({
      statusCode: 429,
      message: 'Too many requests, slow down',
      policy: 'CatsController.findAll',
      retryAfter: 60,
    });
  });

  it('counts no rejected request here; the throttler counts the first and blocks for ttl', async () => {
    // After the test above: 10 admitted and 2 rejected on each app.
    const [key, ...others] = await client.keys('rl:*:CatsController.findAll:sw');
    expect(others).toEqual([]);
    expect(await client.zcard(key)).toBe(10);

    const storage = before.get<ThrottlerStorageService>(getStorageToken());
    const [record] = [...storage.storage.values()].filter((r) => r.totalHits.has('default'));
    expect(record.totalHits.get('default')).toBe(11);
    expect(record.isBlocked).toBe(true);
  });

  it('both allow POST /auth/login 3 times a minute, then refuse it for a minute', async () => {
    const throttler = await send(before, 'post', '/auth/login', 5);
    const limiter = await send(after, 'post', '/auth/login', 5);
    for (const answers of [throttler, limiter]) {
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
      expect(answers.slice(3).map((r) => r.headers['retry-after'])).toEqual(['60', '60']);
    }
    expect(limiter[3].body).toMatchObject({ policy: 'AuthController.login', retryAfter: 60 });
  });

  it("starts the throttler's day at the first request, and this library's at 00:00 UTC", async () => {
    const [throttler] = await send(before, 'get', '/reports/export', 1);
    const from = Date.now();
    const [limiter] = await send(after, 'get', '/reports/export', 1);
    const to = Date.now();
    expect(throttler.headers['x-ratelimit-reset']).toBe(String(DAY_S));
    expect(limiter.headers['ratelimit-limit']).toBe('100');
    expect([...secondsToUtcMidnight(from, to)]).toContain(
      Number(limiter.headers['ratelimit-reset']),
    );
  });

  it('limits neither app on GET /health, and sends no rate-limit header', async () => {
    for (const app of [before, after]) {
      const answers = await send(app, 'get', '/health', 15);
      expect(answers.every((r) => r.status === 200)).toBe(true);
      const headers = Object.keys(answers[14].headers);
      expect(headers.filter((name) => name.includes('ratelimit'))).toEqual([]);
    }
  });
});
