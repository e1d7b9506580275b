/**
 * The demo's public routes, end to end, against a real Redis shared by two demo instances.
 *
 * Isolation: each describe block starts its own pair of instances (A and B) on ONE Redis with a
 * fresh `uniquePrefix()` as RATE_LIMIT_KEY_PREFIX, and TRUST_PROXY=loopback so a test picks its
 * client IP with X-Forwarded-For. In the algorithm block every algorithm uses its own client IP
 * (and its own policy name, which is part of the key), so each starts from a clean state.
 *
 * Windows: the routes' limits and algorithms are the demo's, checked as declared; their windows
 * are set through the admin API to one without a boundary in the hour before the bursts, which
 * then never straddle one (a new window would admit the client again) wherever the clock is.
 */
import type { INestApplication } from '@nestjs/common';
import request, { type Response } from 'supertest';
import { RATE_LIMIT_ALGORITHMS, RateLimiterService } from '@app/rate-limit';
import { type PolicyView } from '@app/rate-limit/admin';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { createDemoApp } from './support/create-demo-app';
import { demoWindowsWithoutBoundary } from './support/demo-windows';

const ALGORITHMS = RATE_LIMIT_ALGORITHMS;
const ADMIN_TOKEN = 'demo-routes-admin-token-0123456789abcdef';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  await redis?.close();
});

/**
 * Two demo instances on the shared Redis with one fresh key prefix, `policies` given a window
 * without a boundary; closed in afterAll.
 */
function usePair(
  label: string,
  policies: readonly string[],
): { a: () => INestApplication; b: () => INestApplication } {
  let a: INestApplication | undefined;
  let b: INestApplication | undefined;
  beforeAll(async () => {
    const overrides = {
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix(label),
      TRUST_PROXY: 'loopback',
      ADMIN_TOKEN,
    };
    a = await createDemoApp(overrides);
    b = await createDemoApp(overrides);
    await a.listen(0, '127.0.0.1');
    await b.listen(0, '127.0.0.1');
    await demoWindowsWithoutBoundary([a, b], ADMIN_TOKEN, policies);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  return { a: () => a!, b: () => b! };
}

function get(
  app: INestApplication,
  path: string,
  ip: string,
  headers: Record<string, string> = {},
) {
  const req = request(app.getHttpServer()).get(path).set('X-Forwarded-For', ip);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req;
}

/** The policy as the admin API shows it: `defaults` are its declared thresholds. */
async function declared(app: INestApplication, policy: string): Promise<PolicyView> {
  const view = await request(app.getHttpServer())
    .get(`/admin/policies/${policy}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .expect(200);
  return view.body as PolicyView;
}

function rateLimitHeaderNames(res: Response): string[] {
  return Object.keys(res.headers).filter((h) => h.startsWith('ratelimit') || h === 'retry-after');
}

function expect429(res: Response, policy: string): void {
  expect(res.status).toBe(429);
  const retryAfter = res.headers['retry-after'];
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  expect(res.body).toEqual({
    statusCode: 429,
    message: 'Too Many Requests',
    policy,
    retryAfter: Number(retryAfter),
  });
}

describe('GET /api/<algo>: 5 per 10 s per client IP, two instances on one Redis', () => {
  const pair = usePair(
    'demo-algos',
    ALGORITHMS.map((algo) => `demo.${algo}`),
  );
  const sequences: string[] = [];

  it.each(ALGORITHMS)('declares demo.%s as 5 per 10 s per client IP on its route', async (algo) => {
    expect(await declared(pair.a(), `demo.${algo}`)).toMatchObject({
      algo,
      defaults: { limit: 5, windowMs: 10_000, burst: 5 },
      routes: [{ method: 'GET', path: `/api/${algo}` }],
    });
  });

  afterAll(() => {
    // One line per algorithm: the status of each request, alternating A, B, A, ...
    console.log(`Status sequences (8 requests alternating instance A/B):\n${sequences.join('\n')}`);
  });

  it.each(ALGORITHMS.map((algo, i) => [algo, `203.0.113.${10 + i}`]))(
    '%s: 5 x 200 then 3 x 429 across both instances (client %s)',
    async (algo, ip) => {
      const responses: Response[] = [];
      for (let i = 0; i < 8; i++) {
        responses.push(await get(i % 2 === 0 ? pair.a() : pair.b(), `/api/${algo}`, ip));
      }
      const statuses = responses.map((r) => r.status);
      sequences.push(`  ${algo.padEnd(22)} ${statuses.join(' ')}`);

      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      responses.slice(0, 5).forEach((res, i) => {
        expect(res.body).toEqual({ algo, ok: true });
        expect(res.headers['ratelimit-limit']).toBe('5');
        expect(res.headers['ratelimit-remaining']).toBe(String(4 - i));
        expect(res.headers['ratelimit-reset']).toMatch(/^\d+$/);
        expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
        expect(res.headers['retry-after']).toBeUndefined();
      });
      for (const res of responses.slice(5)) expect429(res, `demo.${algo}`);
    },
  );
});

describe('GET /api/stacked: demo.stacked-client (3/10s per IP) + demo.stacked-route (20/1m per route)', () => {
  const pair = usePair('demo-stacked', ['demo.stacked-client', 'demo.stacked-route']);

  it('admits 3, rejects the 4th on demo.stacked-client, and does not charge the route-wide policy for it', async () => {
    const ip = '198.51.100.7';
    const responses: Response[] = [];
    for (let i = 0; i < 4; i++)
      responses.push(await get(i % 2 === 0 ? pair.a() : pair.b(), '/api/stacked', ip));

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    // The headers describe the most restrictive policy: the per-client one.
    responses.slice(0, 3).forEach((res, i) => {
      expect(res.headers['ratelimit-limit']).toBe('3');
      expect(res.headers['ratelimit-remaining']).toBe(String(2 - i));
    });
    expect429(responses[3], 'demo.stacked-client');

    const route = await pair
      .a()
      .get(RateLimiterService)
      .peek('demo.stacked-route', 'route:demo.stacked-route');
    expect(route.source).toBe('redis');
    expect(route.remaining).toBe(20 - 3);
    expect(await declared(pair.a(), 'demo.stacked-client')).toMatchObject({
      algo: 'sliding-window',
      defaults: { limit: 3, windowMs: 10_000 },
    });
    expect(await declared(pair.a(), 'demo.stacked-route')).toMatchObject({
      algo: 'fixed-window',
      defaults: { limit: 20, windowMs: 60_000 },
    });
  });
});

describe('GET /api/keyed: token-bucket 5/10s per X-Api-Key, per IP without it', () => {
  const pair = usePair('demo-keyed', ['demo.api-key']);

  it('gives each API key its own 5, and falls back to the client IP bucket without the header', async () => {
    const ip = '198.51.100.20';
    const limiter = pair.a().get(RateLimiterService);
    const statuses: Record<string, number[]> = { alpha: [], beta: [], none: [] };
    const rejections: Response[] = [];

    // Both keys from the same client IP, interleaved and spread over both instances.
    for (let i = 0; i < 6; i++) {
      for (const key of ['alpha', 'beta']) {
        const res = await get(i % 2 === 0 ? pair.a() : pair.b(), '/api/keyed', ip, {
          'X-Api-Key': `key-${key}`,
        });
        statuses[key].push(res.status);
        if (res.status === 429) rejections.push(res);
      }
    }
    // The keyed requests did not touch the IP's bucket.
    expect((await limiter.peek('demo.api-key', `ip:${ip}`)).remaining).toBe(5);

    for (let i = 0; i < 6; i++) {
      const res = await get(i % 2 === 0 ? pair.b() : pair.a(), '/api/keyed', ip);
      statuses.none.push(res.status);
      if (res.status === 429) rejections.push(res);
    }

    const fiveThenReject = [200, 200, 200, 200, 200, 429];
    expect(statuses).toEqual({ alpha: fiveThenReject, beta: fiveThenReject, none: fiveThenReject });
    for (const res of rejections) expect429(res, 'demo.api-key');
    expect((await limiter.peek('demo.api-key', `ip:${ip}`)).remaining).toBe(0);
    expect((await limiter.peek('demo.api-key', 'key:key-alpha')).remaining).toBe(0);
    expect((await limiter.peek('demo.api-key', 'key:key-beta')).remaining).toBe(0);
    expect(await declared(pair.a(), 'demo.api-key')).toMatchObject({
      algo: 'token-bucket',
      defaults: { limit: 5, windowMs: 10_000 },
    });
  });
});

describe('GET /api/unlimited: @SkipRateLimit()', () => {
  const pair = usePair('demo-unlimited', []);

  it('answers 20 requests with 200 and no rate limit headers', async () => {
    const responses: Response[] = [];
    for (let i = 0; i < 20; i++)
      responses.push(
        await get(i % 2 === 0 ? pair.a() : pair.b(), '/api/unlimited', '198.51.100.30'),
      );

    expect(responses.map((r) => r.status)).toEqual(new Array(20).fill(200));
    for (const res of responses) {
      expect(res.body).toEqual({ route: 'unlimited', ok: true });
      expect(rateLimitHeaderNames(res)).toEqual([]);
    }
  });
});
