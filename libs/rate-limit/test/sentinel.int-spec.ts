import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import request from 'supertest';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { RateLimitGuard } from '../src/guard/rate-limit.guard';
import type { RateLimitModuleOptions } from '../src/config/rate-limit-module-options.interface';
import type { RateLimitConfig } from '../src/config/resolve-module-options';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { RATE_LIMIT_CONFIG } from '../src/rate-limit.constants';
import { PolicyRegistry } from '../src/registry/policy-registry';
import { RateLimiterService } from '../src/service/rate-limiter.service';
import { startTestSentinel, type TestSentinel } from './support/redis-sentinel';
import { uniquePrefix } from './support/redis-test-server';
import { timeWithStalls } from './support/stall-meter';
import { fixedWindowCount } from './support/fixed-window-count';

/**
 * The limiter behind Redis Sentinel: a primary, a replica and three sentinels (quorum 2), all
 * real redis-server processes (test/support/redis-sentinel.ts here). The primary is SIGKILLed; the
 * sentinels promote the replica; in between `onRedisError` decides (memory: answered at once,
 * closed: 503), and afterwards Redis decides again, on the promoted node.
 */

/** supertest reaches the app over loopback. */
const LOCAL = 'ip:127.0.0.1';
const LIMIT = 1_000;

@Controller('sentinel')
class SentinelController {
  @Get('hits')
  @RateLimit({ name: 'sentinel-hits', algo: 'fixed-window', limit: LIMIT, window: '1h' })
  hits() {
    return { ok: true };
  }

  @Get('after')
  @RateLimit({ name: 'sentinel-after', algo: 'sliding-window', limit: LIMIT, window: '1h' })
  after() {
    return { ok: true };
  }
}

interface App {
  app: INestApplication;
  config: RateLimitConfig;
  limiter: RateLimiterService;
  registry: PolicyRegistry;
}

const report = (line: string) => process.stdout.write(`[sentinel] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('rate limiting behind Redis Sentinel (primary, replica, 3 sentinels)', () => {
  let sentinel: TestSentinel;
  let memoryApp: App;
  let closedApp: App;
  const direct: Redis[] = [];

  async function createApp(options: RateLimitModuleOptions): Promise<App> {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimitModule.forRoot(options)],
      controllers: [SentinelController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    return {
      app,
      config: app.get(RATE_LIMIT_CONFIG),
      limiter: app.get(RateLimiterService),
      registry: app.get(PolicyRegistry),
    };
  }

  function node(port: number): Redis {
    const client = new Redis({
      host: '127.0.0.1',
      port,
      maxRetriesPerRequest: 1,
      retryStrategy: () => null,
      disconnectTimeout: 50,
    });
    client.on('error', () => undefined);
    direct.push(client);
    return client;
  }

  const keyOf = (a: App, policyName: string, identity = LOCAL) =>
    a.config.keys.stateKey(a.config.keys.identityTag(identity), a.registry.get(policyName)!);

  beforeAll(async () => {
    const started = Date.now();
    sentinel = await startTestSentinel();
    report(
      `primary ${sentinel.primaryPort}, replica ${sentinel.replicaPort}, sentinels ${sentinel.sentinels.map((s) => s.port).join(',')} ready in ${Date.now() - started} ms`,
    );
    const redis = { sentinels: sentinel.sentinels, name: sentinel.name };
    memoryApp = await createApp({ redis, onRedisError: 'memory', keyPrefix: uniquePrefix('mem') });
    closedApp = await createApp({
      redis,
      onRedisError: 'closed',
      keyPrefix: uniquePrefix('closed'),
    });
  }, 60_000);

  afterAll(async () => {
    await memoryApp?.app.close();
    await closedApp?.app.close();
    for (const client of direct) client.disconnect();
    await sentinel?.close();
  }, 30_000);

  it('decides in Redis on the primary before the failover', async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await request(memoryApp.app.getHttpServer()).get('/sentinel/hits').expect(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(LIMIT - i));
    }
    await request(closedApp.app.getHttpServer()).get('/sentinel/hits').expect(200);
    expect((await memoryApp.limiter.peek('sentinel-hits', LOCAL)).source).toBe('redis');
    const primary = node(sentinel.primaryPort);
    expect(fixedWindowCount(await primary.get(keyOf(memoryApp, 'sentinel-hits')))).toBe(5);
    expect(await primary.exists(keyOf(closedApp, 'sentinel-hits'))).toBe(1);
    // Let the replica have every write before the primary dies (replication is asynchronous).
    expect(await primary.wait(1, 2_000)).toBe(1);
  });

  it('keeps answering while the primary is down (onRedisError) and decides in Redis again on the promoted replica', async () => {
    interface Sample {
      t: number;
      app: 'memory' | 'closed';
      status: number;
      ms: number;
      /** `ms` less what the host kept this process off: what the request waited. */
      waitedMs: number;
      source?: string;
    }
    const samples: Sample[] = [];
    let stop = false;
    const traffic = (async () => {
      while (!stop) {
        await Promise.all(
          (['memory', 'closed'] as const).map(async (which) => {
            const a = which === 'memory' ? memoryApp : closedApp;
            const t = Date.now();
            const {
              value: res,
              ms,
              waitedMs,
            } = await timeWithStalls(async () =>
              request(a.app.getHttpServer()).get('/sentinel/hits'),
            );
            // Which store decides right now (a peek charges nothing).
            const source = (await a.limiter.peek('sentinel-hits', 'user:probe')).source;
            samples.push({ t, app: which, status: res.status, ms, waitedMs, source });
          }),
        );
        await sleep(20);
      }
    })();

    try {
      await sleep(200);
      const killedAt = Date.now();
      await sentinel.killPrimary();
      const promoted = await sentinel.waitForPromotion(20_000);
      const promotedAt = Date.now();
      expect(promoted.port).toBe(sentinel.replicaPort);

      const firstBack = async (which: 'memory' | 'closed') => {
        const deadline = Date.now() + 15_000;
        for (;;) {
          const back = samples.find(
            (s) => s.app === which && s.t > killedAt && s.source === 'redis' && s.status === 200,
          );
          if (back) return back.t + back.ms;
          if (Date.now() > deadline) return undefined;
          await sleep(20);
        }
      };
      const [backMemory, backClosed] = await Promise.all([
        firstBack('memory'),
        firstBack('closed'),
      ]);
      await sleep(300);
      stop = true;
      await traffic;

      const recoveredAt = Math.max(promotedAt, backMemory ?? Date.now(), backClosed ?? Date.now());
      const gap = samples.filter((s) => s.t >= killedAt && s.t <= recoveredAt);
      const gapMemory = gap.filter((s) => s.app === 'memory');
      const gapClosed = gap.filter((s) => s.app === 'closed');
      const maxMemoryMs = Math.round(Math.max(0, ...gapMemory.map((s) => s.waitedMs)));
      const maxClosedMs = Math.round(Math.max(0, ...gapClosed.map((s) => s.waitedMs)));
      report(
        `primary killed; sentinels promoted ${promoted.port} after ${promoted.waitedMs} ms; ` +
          `kill -> first Redis decision: memory app ${backMemory === undefined ? 'never' : `${backMemory - killedAt} ms`}, ` +
          `closed app ${backClosed === undefined ? 'never' : `${backClosed - killedAt} ms`}; ` +
          `gap: memory app ${gapMemory.length} requests, statuses ${JSON.stringify(countBy(gapMemory.map((s) => String(s.status))))}, max latency ${maxMemoryMs} ms waited; ` +
          `closed app statuses ${JSON.stringify(countBy(gapClosed.map((s) => String(s.status))))}, max latency ${maxClosedMs} ms waited`,
      );

      expect(backMemory).toBeDefined();
      expect(backClosed).toBeDefined();
      // Redis decides again soon after the promotion (the client's reconnect backoff is <= 1 s).
      expect(backMemory! - promotedAt).toBeLessThan(2_000);
      expect(backClosed! - promotedAt).toBeLessThan(2_000);
      // memory: every request in the gap answered (the in-memory store admits), promptly.
      expect(gapMemory.every((s) => s.status === 200)).toBe(true);
      expect(gapMemory.some((s) => s.source === 'memory')).toBe(true);
      expect(maxMemoryMs).toBeLessThan(memoryApp.config.commandTimeoutMs + 200);
      // closed: refused with 503 while Redis could not decide, also promptly.
      expect(gapClosed.some((s) => s.status === 503)).toBe(true);
      expect(maxClosedMs).toBeLessThan(closedApp.config.commandTimeoutMs + 200);
      // After recovery both apps are decided by Redis again.
      const tail = samples.filter((s) => s.t > recoveredAt + 50);
      expect(tail.length).toBeGreaterThan(0);
      expect(tail.every((s) => s.status === 200 && s.source === 'redis')).toBe(true);
    } finally {
      stop = true;
      await traffic;
    }
  }, 60_000);

  it('writes to the promoted node after the failover, with the state replicated before it', async () => {
    for (let i = 1; i <= 3; i++) {
      const res = await request(memoryApp.app.getHttpServer()).get('/sentinel/after').expect(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(LIMIT - i));
    }
    const promoted = node(sentinel.replicaPort);
    expect(await promoted.zcard(keyOf(memoryApp, 'sentinel-after'))).toBe(3);
    // The counter written before the kill survived on the replica and keeps counting there.
    const raw = await promoted.get(keyOf(memoryApp, 'sentinel-hits'));
    expect(fixedWindowCount(raw)).toBeGreaterThanOrEqual(5);
    expect((await memoryApp.limiter.peek('sentinel-hits', LOCAL)).source).toBe('redis');
  });
});

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
