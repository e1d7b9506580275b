import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { startTestRedis, uniquePrefix, type TestRedis } from '../libs/rate-limit/test/support/redis-test-server';
import { createDemoApp } from './utils/create-demo-app';

/** Reads one sample `name{labels} value` from a Prometheus text exposition. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('GET /metrics after traffic', () => {
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

  const scrape = async () => (await request(app.getHttpServer()).get('/metrics').expect(200)).text;

  it('counts decisions by policy and outcome, near-limit decisions and Redis latency', async () => {
    for (let i = 0; i < 7; i++)
      await request(app.getHttpServer()).get('/api/gcra').set('X-Forwarded-For', '192.0.2.50');
    const text = await scrape();
    expect(sample(text, 'rate_limit_decisions_total', 'policy="demo.gcra",outcome="allowed"')).toBe(
      5,
    );
    expect(
      sample(text, 'rate_limit_decisions_total', 'policy="demo.gcra",outcome="rejected"'),
    ).toBe(2);
    // remaining 0 of 5 is below 20 %: the fifth request
    expect(sample(text, 'rate_limit_near_limit_total', 'policy="demo.gcra"')).toBe(1);
    // 5 admitted + the first rejection went to Redis; the 7th was answered from the cache of
    // rejections (it could not pass before the retry time).
    expect(sample(text, 'rate_limit_redis_command_duration_seconds_count')).toBe(6);
    expect(sample(text, 'rate_limit_redis_circuit_open')).toBe(0);
    // Labels never carry clients: no IP appears anywhere.
    expect(text).not.toContain('192.0.2.50');
  });

  it('counts fallback decisions and Redis errors while Redis is down', async () => {
    await redis.stop();
    for (let i = 0; i < 5; i++)
      await request(app.getHttpServer())
        .get('/api/fixed-window')
        .set('X-Forwarded-For', '192.0.2.51');
    const text = await scrape();
    expect(sample(text, 'rate_limit_fallback_decisions_total', 'mode="memory"')).toBe(5);
    expect(
      sample(text, 'rate_limit_redis_errors_total', 'failure="unavailable"'),
    ).toBeGreaterThanOrEqual(1);
    await redis.restart();
  });
});
