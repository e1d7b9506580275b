/**
 * An application pays only for what it mounts (SPEC section 14): with the core alone there is
 * no decision observer but metrics, none of the admin plane's services (stats flush, traffic,
 * instance status, audit: their timers) and no Redis write only a plane reads; mounting the
 * admin module adds them. Intervals are short here (statsFlushMs 100, policyRefreshMs 200) so
 * that a second holds many of their ticks; what the core sends Redis in it is listed.
 */
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import request from 'supertest';
import { RateLimitAdminModule } from '../src/admin/rate-limit-admin.module';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { DecisionEngine } from '../src/engine/decision-engine';
import { RateLimitGuard } from '../src/guard/rate-limit.guard';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { PolicyStats } from '../src/runtime/policy-stats.service';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { windowWithoutBoundary } from './support/window-headroom';

const TOKEN = 'core-alone-admin-token-0123456789abcdef';
const WINDOW = windowWithoutBoundary();

@Controller()
class HelloController {
  @Get('hello')
  @RateLimit({ limit: 3, window: WINDOW })
  hello() {
    return { hello: 'world' };
  }
}

let redis: TestRedis;
let monitor: Redis;
beforeAll(async () => {
  redis = await startTestRedis();
  // monitor() opens a connection of its own: the client it is called on is closed at once.
  const monitorOf = new Redis(redis.url);
  monitor = await monitorOf.monitor();
  monitorOf.disconnect();
});
afterAll(async () => {
  monitor?.disconnect();
  await redis?.close();
});

async function boot(prefix: string, admin: boolean): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RateLimitModule.forRoot({
        redis: redis.url,
        keyPrefix: prefix,
        statsFlushMs: 100,
        policyRefreshMs: 200,
      }),
      ...(admin ? [RateLimitAdminModule.forRoot({ token: TOKEN })] : []),
    ],
    controllers: [HelloController],
    providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/**
 * Resolves once MONITOR has delivered every command run so far: it streams them behind their
 * execution, so an earlier test's last decisions (FCALL) could arrive inside the next count.
 */
async function monitorCaughtUp(): Promise<void> {
  const marker = `core-alone-caught-up-${Math.random()}`;
  const seen = new Promise<void>((resolve) => {
    const onCommand = (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() !== 'echo' || args[1] !== marker) return;
      monitor.off('monitor', onCommand);
      resolve();
    };
    monitor.on('monitor', onCommand);
  });
  const client = new Redis(redis.url);
  try {
    await client.echo(marker);
    await seen;
  } finally {
    client.disconnect();
  }
}

/** The commands clients sent Redis in `ms`, by name (not those scripts ran: MONITOR's "lua"). */
async function commandsIn(ms: number): Promise<Map<string, number>> {
  await monitorCaughtUp();
  const seen = new Map<string, number>();
  const count = (_time: string, args: string[], source: string) => {
    if (source === 'lua') return;
    const name = args[0].toLowerCase();
    seen.set(name, (seen.get(name) ?? 0) + 1);
  };
  monitor.on('monitor', count);
  await new Promise((resolve) => setTimeout(resolve, ms));
  monitor.off('monitor', count);
  return seen;
}

const keysOf = async (prefix: string): Promise<string[]> => {
  const client = new Redis(redis.url);
  try {
    return (await client.keys(`${prefix}:*`)).sort();
  } finally {
    client.disconnect();
  }
};

describe.each([
  ['the core alone', false],
  ['the core and the admin plane', true],
])('%s', (_label, admin) => {
  const prefix = uniquePrefix(admin ? 'with-admin' : 'core-alone');
  let app: INestApplication;
  beforeAll(async () => {
    app = await boot(prefix, admin);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('limits, and observes decisions only as far as what is mounted reads them', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await request(app.getHttpServer()).get('/hello')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Metrics alone; the admin plane adds stats, traffic and instance status.
    expect(app.get(DecisionEngine)['observers']).toHaveLength(admin ? 4 : 1);
    if (admin) expect(app.get(PolicyStats)).toBeInstanceOf(PolicyStats);
    else expect(() => app.get(PolicyStats)).toThrow();
  });

  it('writes to Redis only what the mounted planes read', async () => {
    const commands = await commandsIn(1_000);
    console.log(
      `${_label}: Redis commands in 1 s: ${JSON.stringify(Object.fromEntries(commands))}`,
    );
    const planeKey = /:(stats|traffic|instance|audit)[:-]/;
    if (admin) {
      // Stats are flushed every 100 ms while there are decisions to flush: wait for the key.
      while (!(await keysOf(prefix)).some((key) => planeKey.test(key))) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } else {
      expect((await keysOf(prefix)).filter((key) => planeKey.test(key))).toEqual([]);
      // The core's own: policy refresh (HGETALL), override discovery (HLEN), the identity
      // secret (MULTI SET GET EXEC) and the outage share's heartbeat (EVALSHA).
      for (const name of commands.keys()) {
        expect(['hgetall', 'hlen', 'multi', 'set', 'get', 'exec', 'evalsha']).toContain(name);
      }
    }
  });
});
