import { Controller, Get, Logger, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import request from 'supertest';
import { ADMIN_PLANE_PROVIDERS } from '../src/admin/admin-plane.providers';
import { RateLimitAdminService } from '../src/admin/rate-limit-admin.service';
import { PolicyKeys } from '../src/admin/policy-keys';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { RateLimitGuard } from '../src/guard/rate-limit.guard';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { PolicyRegistry } from '../src/registry/policy-registry';
import { PolicyStats } from '../src/runtime/policy-stats.service';
import { PolicySync } from '../src/runtime/policy-sync.service';
import { RateLimiterService } from '../src/service/rate-limiter.service';
import { InvalidCostError } from '../src/errors/invalid-cost.error';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { windowAndItsDouble } from './support/window-headroom';
import { within } from './support/within';

/**
 * fw's window, and the longer one it is changed to: the two requests and the change fall in one
 * window, and the longer one ends a whole fw window later, wherever the clock is.
 */
const FW = windowAndItsDouble();

@Controller()
class LimitedController {
  @Get('tb')
  @RateLimit({ name: 'tb', algo: 'token-bucket', limit: 5, window: '1h' })
  tb() {
    return 'ok';
  }

  @Get('log')
  @RateLimit({ name: 'log', algo: 'sliding-window', limit: 3, window: '1h' })
  log() {
    return 'ok';
  }

  @Get('fw')
  @RateLimit({ name: 'fw', algo: 'fixed-window', limit: 2, window: FW.windowMs })
  fw() {
    return 'ok';
  }
}

const REFRESH_MS = 300;

async function startInstance(url: string, prefix: string): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RateLimitModule.forRoot({
        redis: url,
        keyPrefix: prefix,
        // Bursts of 150 concurrent decisions: no test here is about timeouts, so allow for a busy machine.
        commandTimeoutMs: 2_000,
        policyRefreshMs: REFRESH_MS,
        statsFlushMs: 100,
      }),
    ],
    controllers: [LimitedController],
    providers: [
      { provide: APP_GUARD, useClass: RateLimitGuard },
      ...ADMIN_PLANE_PROVIDERS,
      RateLimitAdminService,
      PolicyKeys,
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('runtime policies across two instances on one Redis', () => {
  let redis: TestRedis;
  let admin: Redis;
  let a: INestApplication;
  let b: INestApplication;
  let prefix: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    admin = new Redis(redis.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await redis.close();
  });
  beforeEach(async () => {
    prefix = uniquePrefix();
    [a, b] = await Promise.all([
      startInstance(redis.url, prefix),
      startInstance(redis.url, prefix),
    ]);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('a change made on one instance is applied by the other within 100 ms', async () => {
    const started = performance.now();
    await a.get(RateLimitAdminService).update('tb', { limit: 2, burst: 2 });
    const elapsed = await within(100, () => b.get(PolicyRegistry).get('tb')!.limit === 2);
    console.log(
      `override propagation to the other instance: ${(performance.now() - started).toFixed(1)} ms (poll ${elapsed.toFixed(1)} ms)`,
    );
    expect(b.get(PolicyRegistry).get('tb')).toMatchObject({ limit: 2, burst: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await request(b.getHttpServer()).get('/tb')).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('a hash written directly with HSET is applied within the refresh interval', async () => {
    await admin.hset(`${prefix}:policy:log`, 'limit', '1');
    await within(
      REFRESH_MS + 100,
      () =>
        a.get(PolicyRegistry).get('log')!.limit === 1 &&
        b.get(PolicyRegistry).get('log')!.limit === 1,
    );
  });

  it('a PATCH sets only its own fields: a field written directly just before stays', async () => {
    await admin.hset(`${prefix}:policy:log`, 'mode', 'shadow');
    // No refresh has run yet (300 ms interval): the instance taking the PATCH has most likely
    // not seen the direct write, so it cannot simply merge it from its own copy.
    const view = await a.get(RateLimitAdminService).update('log', { limit: 7 });
    expect(view).toMatchObject({ limit: 7, mode: 'shadow' });
    expect(await admin.hgetall(`${prefix}:policy:log`)).toMatchObject({
      mode: 'shadow',
      limit: '7',
    });
    await within(100, () => b.get(PolicyRegistry).get('log')!.mode === 'shadow');
    expect(b.get(PolicyRegistry).get('log')).toMatchObject({ limit: 7, mode: 'shadow' });
  });

  it('a policy key of another type is skipped with a warning; the others still refresh', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await admin.set(`${prefix}:policy:tb`, '20');
    await admin.hset(`${prefix}:policy:log`, 'limit', '1');
    await a.get(PolicySync).refresh();
    const warnings = warn.mock.calls.map(([m]) => String(m));
    warn.mockRestore();
    expect(a.get(PolicyRegistry).get('log')!.limit).toBe(1);
    expect(a.get(PolicyRegistry).get('tb')!.limit).toBe(5);
    expect(warnings).toContainEqual(expect.stringMatching(/"tb".*WRONGTYPE/));
  });

  it('ignores invalid hash contents with one warning and keeps serving', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await admin.hset(`${prefix}:policy:log`, { limit: 'lots', mode: 'shadow' });
    await within(REFRESH_MS + 100, () => a.get(PolicyRegistry).get('log')!.mode === 'shadow');
    await a.get(PolicySync).refresh();
    await a.get(PolicySync).refresh();
    const warnings = warn.mock.calls.filter(
      ([m]) => String(m).includes('"log"') && String(m).includes('limit="lots"'),
    );
    warn.mockRestore();
    expect(a.get(PolicyRegistry).get('log')).toMatchObject({ limit: 3, mode: 'shadow' });
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThanOrEqual(2); // at most once per instance
    expect((await request(a.getHttpServer()).get('/log')).status).toBe(200);
  });

  it('keeps client state across a threshold change; a new algo starts fresh', async () => {
    for (let i = 0; i < 3; i++) await request(a.getHttpServer()).get('/tb'); // 2 tokens left
    await a.get(RateLimitAdminService).update('tb', { limit: 10 }); // burst follows limit: 12 tokens? no: tokens kept
    await within(100, () => b.get(PolicyRegistry).get('tb')!.limit === 10);
    const kept = await request(b.getHttpServer()).get('/tb');
    expect(kept.headers['ratelimit-limit']).toBe('10');
    expect(Number(kept.headers['ratelimit-remaining'])).toBe(1); // 2 kept tokens, minus this request
    await a.get(RateLimitAdminService).update('tb', { algo: 'fixed-window' });
    await within(100, () => b.get(PolicyRegistry).get('tb')!.algo === 'fixed-window');
    const fresh = await request(b.getHttpServer()).get('/tb');
    expect(fresh.headers['ratelimit-remaining']).toBe('9');
  });

  it('a longer window keeps a fixed-window count: an exhausted client stays limited', async () => {
    for (let i = 0; i < 2; i++)
      expect((await request(a.getHttpServer()).get('/fw')).status).toBe(200);
    await a.get(RateLimitAdminService).update('fw', { windowMs: FW.doubleMs });
    await within(100, () => b.get(PolicyRegistry).get('fw')!.windowMs === FW.doubleMs);
    const limited = await request(b.getHttpServer()).get('/fw');
    expect(limited.status).toBe(429);
    // Limited, and its key kept, for longer than the old window could have kept it.
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(FW.windowMs / 1_000);
    const [key] = await admin.keys(`${prefix}:*:fw:fw`);
    expect(await admin.pttl(key)).toBeGreaterThan(FW.windowMs);
  });

  it('deleting the override restores the decorator defaults everywhere', async () => {
    await a.get(RateLimitAdminService).update('log', { limit: 1, mode: 'shadow' });
    await within(100, () => b.get(PolicyRegistry).get('log')!.limit === 1);
    const view = await b.get(RateLimitAdminService).clearOverride('log');
    expect(view).toMatchObject({ limit: 3, mode: 'enforce', override: null });
    await within(100, () => a.get(PolicyRegistry).get('log')!.limit === 3);
    expect(await admin.exists(`${prefix}:policy:log`)).toBe(0);
  });

  it('falls back to the defaults when Redis loses the hashes', async () => {
    await a.get(RateLimitAdminService).update('log', { limit: 1 });
    await within(100, () => b.get(PolicyRegistry).get('log')!.limit === 1);
    await admin.del(`${prefix}:policy:log`); // what a restarted, empty Redis looks like
    await within(
      REFRESH_MS + 100,
      () =>
        a.get(PolicyRegistry).get('log')!.limit === 3 &&
        b.get(PolicyRegistry).get('log')!.limit === 3,
    );
  });

  it('a disabled policy is not applied', async () => {
    await a.get(RateLimitAdminService).update('log', { limit: 1, enabled: false });
    await within(100, () => b.get(PolicyRegistry).get('log')!.enabled === false);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await request(b.getHttpServer()).get('/log')).status);
    expect(statuses).toEqual([200, 200, 200]);
  });

  it('stats add up traffic of both instances within 2 s', async () => {
    for (let i = 0; i < 4; i++) await request((i % 2 ? a : b).getHttpServer()).get('/log');
    await a.get(RateLimitAdminService).update('log', { mode: 'shadow' });
    await within(100, () => b.get(PolicyRegistry).get('log')!.mode === 'shadow');
    await request(b.getHttpServer()).get('/log');
    const elapsed = await within(2_000, async () => {
      const view = await a.get(RateLimitAdminService).get('log');
      return (
        view.stats.allowed === 3 && view.stats.rejected === 1 && view.stats.shadowRejected === 1
      );
    });
    console.log(`stats from both instances visible after ${elapsed.toFixed(0)} ms`);
    expect(b.get(PolicyStats)).toBeDefined();
  });

  it('consume() refuses a cost that is not an integer from 1 to 1e9', async () => {
    const limiter = a.get(RateLimiterService);
    for (const cost of [0, -5, 1.5, Number.NaN, 1e10]) {
      await expect(limiter.consume('log', 'ip:10.9.9.9', cost)).rejects.toThrow(InvalidCostError);
    }
    expect((await limiter.peek('log', 'ip:10.9.9.9')).remaining).toBe(3);
  });

  it("a programmatic reset on one instance clears the other instance's remembered rejections", async () => {
    const identity = 'ip:10.9.9.8';
    const onA = a.get(RateLimiterService);
    const onB = b.get(RateLimiterService);
    for (let i = 0; i < 3; i++) await onB.consume('log', identity);
    expect((await onB.consume('log', identity)).allowed).toBe(false); // B now remembers the rejection
    await onA.reset('log', identity);
    await within(100, async () => (await onB.consume('log', identity)).allowed);
  });

  it('lists live usage per identity over 1,000+ identities without missing or repeating one', async () => {
    const service = a.get(RateLimitAdminService);
    const limiter = a.get(RateLimiterService);
    const total = 1_050;
    for (let i = 0; i < total; i += 150) {
      await Promise.all(
        Array.from({ length: Math.min(150, total - i) }, (_, j) =>
          limiter.consume('log', `ip:10.1.${(i + j) >> 8}.${(i + j) & 255}`),
        ),
      );
    }
    await limiter.consume('log', 'ip:10.1.0.0');
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await service.keys('log', cursor, 100);
      seen.push(...page.items.map((item) => item.identity));
      if (page.items.some((item) => item.identity === 'ip:10.1.0.0')) {
        expect(page.items.find((item) => item.identity === 'ip:10.1.0.0')).toMatchObject({
          used: 2,
          remaining: 1,
        });
      }
      cursor = page.cursor ?? undefined;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThan(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(total);
    const first = (await service.keys('log', undefined, 10)).items[0];
    expect(first.resetMs).toBeGreaterThan(0);
    await service.resetKey('log', 'ip:10.1.0.0');
    expect((await a.get(RateLimiterService).peek('log', 'ip:10.1.0.0')).remaining).toBe(3);
  });
});
