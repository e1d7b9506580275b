/**
 * shedRememberedRejections(app) (issue 16): a client's remembered rejection is answered before
 * routing with the guard's own 429 (status, headers, body byte for byte), counted in metrics and
 * stats alike, unseen by what runs after the shedder (exception filters, interceptors); resets
 * and policy changes stop it at once; routes whose identity needs routing are never shed. On
 * Express and (jest project e2e-fastify) on Fastify, on a fixture app that installs it before
 * init.
 */
import {
  Catch,
  Controller,
  Get,
  UseFilters,
  UseInterceptors,
  type ArgumentsHost,
  type CallHandler,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
} from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { Observable } from 'rxjs';
import request, { type Response } from 'supertest';
import { RateLimit, RateLimitMetrics } from '@app/rate-limit';
import { shedRememberedRejections } from '@app/rate-limit/shedder';
import { RejectedRoutes } from '@app/rate-limit/registry/rejected-routes';
import { PolicyStats } from '@app/rate-limit/runtime/policy-stats.service';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { windowWithoutBoundary } from '../support/window-headroom';
import { ADMIN_AUTH as AUTH, createFixtureApp } from './fixtures/fixture-app';

/** One per client in a fixed window that does not end during a test (one would unshed it). */
const ONE_PER_WINDOW = { algo: 'fixed-window', limit: 1, window: windowWithoutBoundary() } as const;

/** What the app's own enhancers saw: a shed request reaches neither. */
const seen = { filter: 0, interceptor: 0 };

@Catch()
class CountingFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    seen.filter++;
    super.catch(exception, host);
  }
}

class CountingInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    seen.interceptor++;
    return next.handle();
  }
}

const header = (name: string) => (ctx: ExecutionContext) =>
  ctx.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers[name];

@Controller('shed')
@UseFilters(CountingFilter)
@UseInterceptors(CountingInterceptor)
class ShedController {
  @Get('ip')
  @RateLimit({ name: 'shed.ip', key: 'ip', ...ONE_PER_WINDOW })
  ip(): string {
    return 'ok';
  }

  @Get('tenant')
  @RateLimit({ name: 'shed.tenant', key: { header: 'x-tenant' }, ...ONE_PER_WINDOW })
  tenant(): string {
    return 'ok';
  }

  @Get('user')
  @RateLimit({ name: 'shed.user', key: 'user', ...ONE_PER_WINDOW })
  user(): string {
    return 'ok';
  }

  @Get('fn')
  @RateLimit({ name: 'shed.fn', key: header('x-who'), ...ONE_PER_WINDOW })
  fn(): string {
    return 'ok';
  }
}

describe('shedRememberedRejections() on a fixture app', () => {
  let redis: TestRedis;
  let app: INestApplication;
  let ips = 0;
  /** A client of its own per test: nothing remembered for it yet. */
  const client = () => `198.51.100.${++ips}`;

  beforeAll(async () => {
    redis = await startTestRedis();
    app = await createFixtureApp({
      limiter: {
        redis: redis.url,
        keyPrefix: uniquePrefix('shed'),
        trustProxy: 'loopback',
        // No flush in the middle of a test: a flush in flight hides its counts from totals().
        statsFlushMs: 60_000,
      },
      controllers: [ShedController],
      admin: true,
      // Before init: the shedder must come ahead of the routes.
      beforeInit: (nest) => shedRememberedRejections(nest),
    });
  });
  afterAll(async () => {
    await app?.close();
    await redis?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const get = (path: string, ip: string, headers: Record<string, string> = {}) =>
    request(app.getHttpServer()).get(path).set('X-Forwarded-For', ip).set(headers);

  /** Statuses of `n` requests in turn, and how many of them the app's filter and interceptor saw. */
  async function hits(n: number, path: string, ip: string, headers?: Record<string, string>) {
    const before = { ...seen };
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await get(path, ip, headers)).status);
    return {
      statuses,
      filter: seen.filter - before.filter,
      interceptor: seen.interceptor - before.interceptor,
    };
  }

  it('answers the guard 429s after the first before routing: filters and interceptors see none', async () => {
    const ip = client();
    // 200 (interceptor), 429 from Redis by the guard (filter), then three shed.
    expect(await hits(5, '/shed/ip', ip)).toEqual({
      statuses: [200, 429, 429, 429, 429],
      filter: 1,
      interceptor: 1,
    });
    // Another client on the same route is decided by the guard, and admitted.
    expect(await hits(1, '/shed/ip', client())).toEqual({
      statuses: [200],
      filter: 0,
      interceptor: 1,
    });
  });

  it("sends the guard's 429 byte for byte: status, every header, body", async () => {
    const ip = client();
    expect((await hits(2, '/shed/ip', ip)).statuses).toEqual([200, 429]);
    // Both answers come from the one remembered rejection, aged to the same instant. `/shed/ip/`
    // routes to the same handler, but the shedder has not learned that path: the guard answers.
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now);
    const before = seen.filter;
    const byGuard = await get('/shed/ip/', ip);
    expect(seen.filter).toBe(before + 1);
    const shed = await get('/shed/ip', ip);
    expect(seen.filter).toBe(before + 1);

    const described = (res: Response) => {
      const { date: _date, ...headers } = res.headers;
      return { status: res.status, headers, text: res.text };
    };
    expect(described(shed)).toEqual(described(byGuard));
    expect(shed.status).toBe(429);
    expect(shed.headers['content-type']).toMatch(/^application\/json/);
    expect(shed.headers['retry-after']).toMatch(/^\d+$/);
    expect(shed.headers['ratelimit-limit']).toBe('1');
    expect(shed.headers['ratelimit-remaining']).toBe('0');
    expect(JSON.parse(shed.text)).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'shed.ip',
      retryAfter: Number(shed.headers['retry-after']),
    });
  });

  it('sheds by a header identity, and admits another value of that header', async () => {
    const ip = client();
    expect(await hits(4, '/shed/tenant', ip, { 'X-Tenant': 'acme' })).toEqual({
      statuses: [200, 429, 429, 429],
      filter: 1,
      interceptor: 1,
    });
    expect((await hits(1, '/shed/tenant', ip, { 'X-Tenant': 'globex' })).statuses).toEqual([200]);
  });

  it.each([
    ['user', '/shed/user', {}],
    ['a key function', '/shed/fn', { 'X-Who': 'w-1' }],
  ])(
    'never sheds a route keyed by %s: the guard answers every 429',
    async (_key, path, headers) => {
      expect(await hits(4, path, client(), headers)).toEqual({
        statuses: [200, 429, 429, 429],
        filter: 3,
        interceptor: 1,
      });
      expect(app.get(RejectedRoutes).routeOf({ method: 'GET', url: path })).toBeUndefined();
    },
  );

  it('stops shedding a client at once when the admin API resets it', async () => {
    const ip = client();
    expect((await hits(3, '/shed/ip', ip)).filter).toBe(1);
    await request(app.getHttpServer())
      .delete(`/admin/policies/shed.ip/keys/${encodeURIComponent(`ip:${ip}`)}`)
      .set(AUTH)
      .expect(204);
    // Admitted again by the guard; its next 429 comes from Redis through the guard again.
    expect(await hits(3, '/shed/ip', ip)).toEqual({
      statuses: [200, 429, 429],
      filter: 1,
      interceptor: 1,
    });
  });

  it('stops shedding at once when the policy changes, and sheds again under the new limit', async () => {
    const ip = client();
    expect((await hits(3, '/shed/ip', ip)).filter).toBe(1);
    await request(app.getHttpServer())
      .patch('/admin/policies/shed.ip')
      .set(AUTH)
      .send({ limit: 3 })
      .expect(200);
    try {
      // 1 of 3 used: two more admitted, then the guard's 429, then shed.
      expect(await hits(5, '/shed/ip', ip)).toEqual({
        statuses: [200, 200, 429, 429, 429],
        filter: 1,
        interceptor: 2,
      });
    } finally {
      await request(app.getHttpServer())
        .delete('/admin/policies/shed.ip/override')
        .set(AUTH)
        .expect(200);
    }
  });

  it('counts shed rejections in metrics and policy stats as the guard counts its own', async () => {
    const rejected = async () => {
      const metrics = await app.get(RateLimitMetrics).registry.getMetricsAsJSON();
      const decisions = metrics.find((m) => m.name === 'rate_limit_decisions_total')!;
      const value = (decisions.values as { labels: Record<string, string>; value: number }[]).find(
        (v) => v.labels.policy === 'shed.tenant' && v.labels.outcome === 'rejected',
      );
      const stats = (await app.get(PolicyStats).totals(['shed.tenant'])).get('shed.tenant')!;
      return { metric: value?.value ?? 0, stats: stats.rejected };
    };
    const before = await rejected();
    const { statuses, filter } = await hits(6, '/shed/tenant', client(), { 'X-Tenant': 'initech' });
    expect(statuses).toEqual([200, 429, 429, 429, 429, 429]);
    expect(filter).toBe(1); // four of the five were shed
    expect(await rejected()).toEqual({ metric: before.metric + 5, stats: before.stats + 5 });
  });
});
