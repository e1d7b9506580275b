/**
 * README.md's smallest working example, tested: the two files of a fresh `nest new` app it has
 * the reader replace (app.module.ts, app.controller.ts; app.service.ts is the starter's own,
 * byte for byte, see tools/docs-snippets.spec.ts), on a real Redis: GET / answers 200 five times
 * with the rate-limit headers, then 429 with Retry-After and the documented body. The README's
 * blocks are these files, `@app/rate-limit` spelled `nest-redis-rate-limit`.
 */
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { untilReady } from '../../support/redis-readiness';
import { startTestRedis, type TestRedis } from '../../support/redis-test-server';
import { E2E_PLATFORM, fixtureAdapter } from '../fixtures/fixture-app';
import type { AppModule as ReadmeModule } from './app.module';

describe("README's example: a nest new app with one limited route", () => {
  let redis: TestRedis;
  let app: INestApplication;

  beforeAll(async () => {
    redis = await startTestRedis();
    // Its keys use the default prefix: a Redis REDIS_URL shares between the platform projects
    // gets a database of each platform's own.
    process.env.REDIS_URL = redis.owned
      ? redis.url
      : `${redis.url}/${E2E_PLATFORM === 'fastify' ? 1 : 0}`;
    // The module reads REDIS_URL when it is declared, so it loads after it is set.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { AppModule } = require('./app.module') as { AppModule: typeof ReadmeModule };
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication(fixtureAdapter(), { logger: false });
    await app.init();
    if (E2E_PLATFORM === 'fastify') {
      await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
    }
    await untilReady(app);
  });
  afterAll(async () => {
    await app?.close();
    await redis?.close();
  });

  it('answers Hello World! 5 times a minute, then 429 with the documented body', async () => {
    const answers: request.Response[] = [];
    for (let i = 0; i < 6; i++) answers.push(await request(app.getHttpServer()).get('/'));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers[0].text).toBe('Hello World!');
    expect(answers[0].headers).toMatchObject({
      'ratelimit-limit': '5',
      'ratelimit-remaining': '4',
      'ratelimit-reset': '60',
    });
    expect(answers[5].headers['retry-after']).toBe('60');
    expect(answers[5].body).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'AppController.getHello',
      retryAfter: 60,
    });
  });
});
