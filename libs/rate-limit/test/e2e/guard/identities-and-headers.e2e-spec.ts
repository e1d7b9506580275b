/**
 * Who a request counts against and how the answer says so, over HTTP on fixture apps with the
 * memory store: forwarded addresses behind a trusted proxy, the whole route as one identity, key
 * functions (synchronous and not), and the IETF draft's headers or none.
 */
import { Controller, Get, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { RateLimit, RateLimiterService } from '@app/rate-limit';
import { createFixtureApp } from '../fixtures/fixture-app';
import { WINDOW } from './guard-controllers';

/** supertest reaches the app over loopback; the guard reports `::ffff:127.0.0.1` as IPv4. */
const LOCAL = 'ip:127.0.0.1';
const STANDARD_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];
const IETF_HEADERS = ['ratelimit-policy', 'ratelimit'];

@Controller('proxied')
class ProxiedController {
  @Get('route')
  @RateLimit({ name: 'whole-route', limit: 2, window: WINDOW, key: 'route' })
  route() {
    return { ok: true };
  }

  @Get('ip')
  @RateLimit({ name: 'per-ip', limit: 1, window: WINDOW })
  ip() {
    return { ok: true };
  }
}

const identityCalls = { sync: 0, async: 0 };

@Controller('keyed-by-function')
class FunctionKeyController {
  // Order matters to the guard: a promise in the middle of synchronous resolvers.
  @Get()
  @RateLimit({ name: 'fn-first-ip', limit: 3, window: WINDOW })
  @RateLimit({
    name: 'fn-async',
    limit: 2,
    window: WINDOW,
    key: async (ctx) => {
      identityCalls.async++;
      return Promise.resolve(String(ctx.switchToHttp().getRequest().headers['x-tenant']));
    },
  })
  @RateLimit({
    name: 'fn-sync',
    limit: 5,
    window: WINDOW,
    key: (ctx) => {
      identityCalls.sync++;
      return `sync-${String(ctx.switchToHttp().getRequest().headers['x-tenant'])}`;
    },
  })
  handler() {
    return { ok: true };
  }
}

/** A sliding window (not aligned to the clock): its reset is at most its 10 s. */
@Controller('styled')
class StyledController {
  @Get()
  @RateLimit({ name: 'styled', algo: 'sliding-window', limit: 1, window: '10s' })
  handler() {
    return { ok: true };
  }
}

describe('RateLimitGuard behind a trusted proxy', () => {
  let app: INestApplication;
  const get = (path: string, client: string) =>
    request(app.getHttpServer()).get(path).set('X-Forwarded-For', client);

  beforeAll(async () => {
    app = await createFixtureApp({
      controllers: [ProxiedController],
      limiter: { trustProxy: true },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('buckets key ip by the forwarded client address', async () => {
    await get('/proxied/ip', '203.0.113.1').expect(200);
    await get('/proxied/ip', '203.0.113.1').expect(429);
    await get('/proxied/ip', '203.0.113.2').expect(200);
    const limiter = app.get(RateLimiterService);
    expect((await limiter.peek('per-ip', 'ip:203.0.113.1')).remaining).toBe(0);
    expect((await limiter.peek('per-ip', 'ip:203.0.113.2')).remaining).toBe(0);
    expect((await limiter.peek('per-ip', LOCAL)).remaining).toBe(1);
  });

  it('with key route shares one bucket across clients', async () => {
    await get('/proxied/route', '198.51.100.1').expect(200);
    await get('/proxied/route', '198.51.100.2').expect(200);
    const rejected = await get('/proxied/route', '198.51.100.3').expect(429);
    expect(rejected.body.policy).toBe('whole-route');
    expect(
      (await app.get(RateLimiterService).peek('whole-route', 'route:whole-route')).remaining,
    ).toBe(0);
  });
});

describe('RateLimitGuard with key functions', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createFixtureApp({ controllers: [FunctionKeyController] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('charges synchronous and asynchronous key functions once per request each', async () => {
    const get = (tenant: string) =>
      request(app.getHttpServer()).get('/keyed-by-function').set('X-Tenant', tenant);
    await get('a').expect(200);
    await get('a').expect(200);
    const rejected = await get('a').expect(429);
    expect(rejected.body.policy).toBe('fn-async');
    await get('b').expect(200);
    expect(identityCalls).toEqual({ sync: 4, async: 4 });
    const limiter = app.get(RateLimiterService);
    expect((await limiter.peek('fn-async', 'fn:a')).remaining).toBe(0);
    expect((await limiter.peek('fn-async', 'fn:b')).remaining).toBe(1);
    // The rejected request charged nobody: all-or-nothing across the three identities.
    expect((await limiter.peek('fn-sync', 'fn:sync-a')).remaining).toBe(3);
    expect((await limiter.peek('fn-first-ip', LOCAL)).remaining).toBe(0);
  });
});

describe('RateLimitGuard with headers: ietf-draft', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createFixtureApp({
      controllers: [StyledController],
      limiter: { headers: 'ietf-draft' },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('emits RateLimit-Policy and RateLimit instead of RateLimit-Limit/-Remaining/-Reset', async () => {
    const ok = await request(app.getHttpServer()).get('/styled').expect(200);
    expect(ok.headers['ratelimit-policy']).toBe('"styled";q=1');
    expect(ok.headers['ratelimit']).toMatch(/^"styled";r=0;t=([1-9]|10)$/);
    for (const name of STANDARD_HEADERS) expect(ok.headers[name]).toBeUndefined();

    const rejected = await request(app.getHttpServer()).get('/styled').expect(429);
    expect(rejected.headers['ratelimit-policy']).toBe('"styled";q=1');
    expect(Number(rejected.headers['retry-after'])).toBeGreaterThan(0);
    for (const name of STANDARD_HEADERS) expect(rejected.headers[name]).toBeUndefined();
  });
});

describe('RateLimitGuard with headers: none', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createFixtureApp({ controllers: [StyledController], limiter: { headers: 'none' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('emits no rate limit headers, but still Retry-After on a 429', async () => {
    const ok = await request(app.getHttpServer()).get('/styled').expect(200);
    for (const name of [...STANDARD_HEADERS, ...IETF_HEADERS, 'retry-after'])
      expect(ok.headers[name]).toBeUndefined();

    const rejected = await request(app.getHttpServer()).get('/styled').expect(429);
    for (const name of [...STANDARD_HEADERS, ...IETF_HEADERS])
      expect(rejected.headers[name]).toBeUndefined();
    const retryAfter = Number(rejected.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(rejected.body).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'styled',
      retryAfter,
    });
  });
});
