/**
 * The demo's RATE_LIMIT_SHED_REJECTIONS switch: with it on, a client's remembered rejection is
 * answered before routing (the guard never runs for it); off (the default), every request goes
 * through the guard. What the shedder answers is the library's, tested on fixture apps
 * (libs/rate-limit/test/e2e/shed-rejections*.e2e-spec.ts); this is the demo's wiring.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { RateLimitGuard } from '@app/rate-limit';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { demoWindowsWithoutBoundary } from './support/demo-windows';
import { createDemoApp } from './support/create-demo-app';

const ADMIN_TOKEN = 'demo-shed-admin-token-0123456789abcdef';
const POLICY = 'demo.fixed-window';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

describe.each([
  ['on', 'true', 0],
  ['off (default)', undefined, 1],
] as const)('RATE_LIMIT_SHED_REJECTIONS %s', (_label, shed, guardRunsAfterRejection) => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createDemoApp({
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix('demo-shed'),
      TRUST_PROXY: 'loopback',
      ADMIN_TOKEN,
      RATE_LIMIT_SHED_REJECTIONS: shed,
    });
    await demoWindowsWithoutBoundary([app], ADMIN_TOKEN, [POLICY]);
  });
  afterAll(async () => {
    await app?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  it(`a rejected client's next request runs the guard ${guardRunsAfterRejection} time(s)`, async () => {
    const hit = () =>
      request(app.getHttpServer()).get('/api/fixed-window').set('X-Forwarded-For', '203.0.113.80');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await hit()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);

    const guard = jest.spyOn(RateLimitGuard.prototype, 'canActivate');
    const next = await hit();
    expect(next.status).toBe(429);
    expect(next.body).toMatchObject({ statusCode: 429, policy: POLICY });
    expect(guard).toHaveBeenCalledTimes(guardRunsAfterRejection);
  });
});
