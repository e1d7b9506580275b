/**
 * The demo's Prometheus scrape endpoint: GET /metrics answers the rate limiter's series (what
 * they count is the library's, tested in libs/rate-limit/test/e2e/decision-metrics.e2e-spec.ts)
 * and Node's process metrics, as Prometheus text, unlimited.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { createDemoApp } from './support/create-demo-app';

describe('GET /metrics', () => {
  let redis: TestRedis;
  let app: INestApplication;

  beforeAll(async () => {
    redis = await startTestRedis();
    app = await createDemoApp({
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix(),
      TRUST_PROXY: 'loopback',
      ADMIN_TOKEN: 'metrics-admin-token-0123456789abcdefgh',
    });
  });
  afterAll(async () => {
    await app.close();
    await redis.close();
  });

  it("serves the limiter's series and the process's, as Prometheus text, without a limit", async () => {
    await request(app.getHttpServer()).get('/api/gcra').set('X-Forwarded-For', '192.0.2.50');
    const res = await request(app.getHttpServer()).get('/metrics').expect(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.text).toContain(
      'rate_limit_decisions_total{policy="demo.gcra",outcome="allowed"} 1',
    );
    expect(res.text).toContain('process_resident_memory_bytes');
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });
});
