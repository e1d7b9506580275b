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
import { runRedisCli } from './support/redis-commands';
import { timeWithStalls } from './support/stall-meter';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';

/** A redis-server with `requirepass`: the right password decides in Redis, a wrong one falls back. */

const PASSWORD = 's3cret';
const LOCAL = 'ip:127.0.0.1';
const report = (line: string) => process.stdout.write(`[password] ${line}\n`);

@Controller('pw')
class PasswordController {
  @Get()
  @RateLimit({ name: 'pw', algo: 'token-bucket', limit: 3, window: '1h' })
  get() {
    return { ok: true };
  }
}

interface App {
  app: INestApplication;
  config: RateLimitConfig;
  limiter: RateLimiterService;
  registry: PolicyRegistry;
}

describe('Redis with requirepass', () => {
  let server: TestRedis;
  let admin: Redis;
  const apps: App[] = [];

  async function createApp(options: RateLimitModuleOptions): Promise<App> {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimitModule.forRoot({ keyPrefix: uniquePrefix('pw'), ...options })],
      controllers: [PasswordController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const created = {
      app,
      config: app.get(RATE_LIMIT_CONFIG),
      limiter: app.get(RateLimiterService),
      registry: app.get(PolicyRegistry),
    };
    apps.push(created);
    return created;
  }
  const keyOf = (a: App) =>
    a.config.keys.stateKey(a.config.keys.identityTag(LOCAL), a.registry.get('pw')!);
  const url = (password: string) => `redis://:${password}@127.0.0.1:${server.port}`;

  beforeAll(async () => {
    server = await startTestRedis({ args: ['--requirepass', PASSWORD] });
    admin = new Redis({ host: server.host, port: server.port, password: PASSWORD });
  });
  afterAll(async () => {
    for (const a of apps) await a.app.close();
    await admin?.quit();
    await server?.close();
    // ioredis leaves a 2 s timer behind when it disconnects a socket that is already closed (the
    // wrong-password clients): let it run out so the worker exits cleanly.
    await new Promise((r) => setTimeout(r, 2_100));
  }, 10_000);

  it('the server really requires the password', async () => {
    expect(await runRedisCli(['-h', server.host, '-p', String(server.port), 'PING'])).toMatch(
      /NOAUTH/,
    );
    expect(await admin.ping()).toBe('PONG');
  });

  it('decides in Redis with the password in the URL', async () => {
    const a = await createApp({ redis: url(PASSWORD) });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await request(a.app.getHttpServer()).get('/pw')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await a.limiter.peek('pw', LOCAL)).source).toBe('redis');
    expect(await admin.exists(keyOf(a))).toBe(1);
  });

  it.each([
    ['memory', 200],
    ['closed', 503],
  ] as const)(
    'with a wrong password falls back per onRedisError=%s, never hanging a request',
    async (onRedisError, status) => {
      const a = await createApp({ redis: url('wrong'), onRedisError });
      // What each request waited: its time less what the host kept this process from running
      // (support/stall-meter); a busy CI host once stretched one to 375 ms.
      const latencies: number[] = [];
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const { value: res, waitedMs } = await timeWithStalls(
          async () => await request(a.app.getHttpServer()).get('/pw'),
        );
        statuses.push(res.status);
        latencies.push(Math.round(waitedMs));
      }
      report(
        `wrong password, onRedisError=${onRedisError}: statuses ${statuses.join(',')}; max waited ${Math.max(...latencies)} ms`,
      );
      if (onRedisError === 'memory') {
        // The in-memory store enforces the same policy: 3 admitted, then 429.
        expect(statuses).toEqual([200, 200, 200, ...Array(7).fill(429)]);
        expect((await a.limiter.peek('pw', LOCAL)).source).toBe('memory');
      } else {
        expect(statuses.every((s) => s === status)).toBe(true);
      }
      expect(Math.max(...latencies)).toBeLessThan(a.config.commandTimeoutMs + 150);
      expect(await admin.exists(keyOf(a))).toBe(0);
    },
  );
});
