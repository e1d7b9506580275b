/**
 * Operators listing keys never degrade live traffic (SPEC section 6): six listings of 1,000 keys
 * at once, on a policy with 20,000 clients, while clients keep coming. The listing's Redis calls
 * are batched, run on their own time budget and never count against the circuit breaker, so no
 * live decision leaves Redis.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { RateLimiterService, RateLimitMetrics } from '@app/rate-limit';
import { metricTotal, parseMetrics } from './support/demo-process';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { ensureWindowHeadroom } from '../libs/rate-limit/test/support/window-headroom';
import { createDemoApp } from './utils/create-demo-app';
import { untilReady } from './utils/redis-readiness';

const TOKEN = 'listing-load-token-0123456789abcdefgh';
const POLICY = 'demo.fixed-window';
const CLIENTS = 20_000;
const LISTINGS = 6;
const PAGE = 1_000;

const ip = (n: number) => `ip:10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

describe('six keys listings of 1,000 at once beside live traffic', () => {
  let redis: TestRedis;
  let app: INestApplication;

  beforeAll(async () => {
    redis = await startTestRedis();
    app = await createDemoApp({
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix('listing'),
      ADMIN_TOKEN: TOKEN,
    });
    await untilReady(app);
    // The demo's fixed window is 10 s, aligned to the epoch: the clients charged here must still
    // be in their window when the listings read them (charging and listing take about 3 s).
    await ensureWindowHeadroom(10_000, 9_000);
    const limiter = app.get(RateLimiterService);
    for (let n = 0; n < CLIENTS; n += 1_000) {
      const batch = Array.from({ length: 1_000 }, (_, i) => limiter.consume(POLICY, ip(n + i)));
      expect((await Promise.all(batch)).every((d) => d.source === 'redis')).toBe(true);
    }
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await redis?.close();
  });

  it('lists every page while live decisions stay in Redis and the breaker stays closed', async () => {
    const limiter = app.get(RateLimiterService);
    const listings = Array.from({ length: LISTINGS }, () =>
      request(app.getHttpServer())
        .get(`/admin/policies/${POLICY}/keys?count=${PAGE}`)
        .set('Authorization', `Bearer ${TOKEN}`),
    );
    // Live traffic while the listings run: fresh clients, one per turn of the event loop.
    let listing = true;
    const live: Promise<string>[] = [];
    const traffic = (async () => {
      for (let n = 0; listing; n++) {
        live.push(limiter.consume(POLICY, ip(CLIENTS + n)).then((d) => d.source));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const pages = await Promise.all(listings);
    listing = false;
    await traffic;
    const sources = await Promise.all(live);

    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeGreaterThan(PAGE / 2);
      expect(page.body.items[0]).toMatchObject({ used: 1, remaining: 4 });
    }
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((s) => s !== 'redis')).toEqual([]);
    const metrics = parseMetrics(await app.get(RateLimitMetrics).registry.metrics());
    expect(metricTotal(metrics, 'rate_limit_redis_errors_total')).toBe(0);
    expect(metricTotal(metrics, 'rate_limit_redis_circuit_opened_total')).toBe(0);
    expect(metricTotal(metrics, 'rate_limit_fallback_decisions_total')).toBe(0);
  });

  it('a listing Redis does not answer is a 503 and no failure of the request path', async () => {
    await redis.pause();
    try {
      const page = await request(app.getHttpServer())
        .get(`/admin/policies/${POLICY}/keys?count=${PAGE}`)
        .set('Authorization', `Bearer ${TOKEN}`);
      expect(page.status).toBe(503);
    } finally {
      await redis.resume();
    }
    const metrics = parseMetrics(await app.get(RateLimitMetrics).registry.metrics());
    expect(metricTotal(metrics, 'rate_limit_redis_errors_total')).toBe(0);
    expect(metricTotal(metrics, 'rate_limit_redis_circuit_opened_total')).toBe(0);
    expect((await app.get(RateLimiterService).consume(POLICY, ip(CLIENTS * 2))).source).toBe(
      'redis',
    );
  });
});
