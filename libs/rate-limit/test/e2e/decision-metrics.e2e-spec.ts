/**
 * The library's Prometheus metrics after traffic through a fixture app (its registry's own
 * text, as a scrape gets it): decisions by policy and outcome, near-limit decisions, Redis
 * latency and errors, fallback decisions, and never a client in a label.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { RateLimitMetrics } from '@app/rate-limit';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { windowWithoutBoundary } from '../support/window-headroom';
import { createFixtureApp } from './fixtures/fixture-app';
import { algorithmsController } from './fixtures/limited-controller';

/** Reads one sample `name{labels} value` from a Prometheus text exposition. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('rate-limit metrics after traffic', () => {
  let redis: TestRedis;
  let app: INestApplication;

  beforeAll(async () => {
    redis = await startTestRedis();
    app = await createFixtureApp({
      limiter: { redis: redis.url, keyPrefix: uniquePrefix(), trustProxy: 'loopback' },
      // 5 per client; nothing refills during the test, so exactly 5 of 7 are admitted.
      controllers: [
        algorithmsController('api', { limit: 5, window: windowWithoutBoundary() }, [
          'gcra',
          'fixed-window',
        ]),
      ],
    });
  });
  afterAll(async () => {
    await app.close();
    await redis.close();
  });

  const scrape = () => app.get(RateLimitMetrics).registry.metrics();

  it('counts decisions by policy and outcome, near-limit decisions and Redis latency', async () => {
    for (let i = 0; i < 7; i++)
      await request(app.getHttpServer()).get('/api/gcra').set('X-Forwarded-For', '192.0.2.50');
    const text = await scrape();
    expect(sample(text, 'rate_limit_decisions_total', 'policy="api.gcra",outcome="allowed"')).toBe(
      5,
    );
    expect(sample(text, 'rate_limit_decisions_total', 'policy="api.gcra",outcome="rejected"')).toBe(
      2,
    );
    // remaining 0 of 5 is below 20 %: the fifth request
    expect(sample(text, 'rate_limit_near_limit_total', 'policy="api.gcra"')).toBe(1);
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
