/**
 * shedRememberedRejections(app) in an application of its own: installed before init only, once;
 * the paths it remembers stay bounded under a flood of random paths; Nest middleware sees shed
 * requests on Fastify (middie runs in an earlier onRequest hook) but not on Express; and where
 * one path may reach two handlers (versioning by header) it sheds nothing.
 */
import {
  Catch,
  Controller,
  Get,
  Module,
  VersioningType,
  type ArgumentsHost,
  type DynamicModule,
  type INestApplication,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, BaseExceptionFilter, NestFactory } from '@nestjs/core';
import request from 'supertest';
import { RateLimit, RateLimitConfigError, RateLimitGuard, RateLimitModule } from '@app/rate-limit';
import { shedRememberedRejections } from '@app/rate-limit/shedder';
import { RejectedRoutes } from '@app/rate-limit/registry/rejected-routes';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { windowWithoutBoundary } from '../support/window-headroom';
import { E2E_PLATFORM, fixtureAdapter } from './fixtures/fixture-app';

const seen = { filter: 0, middleware: 0 };

@Catch()
class CountingFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    seen.filter++;
    super.catch(exception, host);
  }
}

/** A window that does not end during a test: a rejected client stays rejected. */
const WINDOW = windowWithoutBoundary();

@Controller('flood')
class FloodController {
  @Get('items/:id')
  @RateLimit({ name: 'flood.items', key: 'ip', algo: 'fixed-window', limit: 1, window: WINDOW })
  item(): string {
    return 'ok';
  }
}

function floodModule(redisUrl: string): DynamicModule {
  @Module({})
  class FloodModule implements NestModule {
    configure(consumer: MiddlewareConsumer): void {
      consumer
        .apply((_req: unknown, _res: unknown, next: () => void) => {
          seen.middleware++;
          next();
        })
        .forRoutes(FloodController);
    }
  }
  return {
    module: FloodModule,
    imports: [
      RateLimitModule.forRoot({
        redis: redisUrl,
        keyPrefix: uniquePrefix('shed-setup'),
        trustProxy: 'loopback',
      }),
    ],
    controllers: [FloodController],
    providers: [
      { provide: APP_GUARD, useClass: RateLimitGuard },
      { provide: APP_FILTER, useClass: CountingFilter },
    ],
  };
}

/**
 * Created as main.ts creates an app (NestFactory, not the testing module: only NestFactory
 * registers Fastify's middleware plugin at creation, which orders its hook before the shedder's).
 * `prepare` runs where main.ts would call shedRememberedRejections.
 */
async function createApp(
  redisUrl: string,
  prepare: (app: INestApplication) => void,
): Promise<INestApplication> {
  const app = await NestFactory.create(floodModule(redisUrl), fixtureAdapter(), {
    logger: false,
  });
  prepare(app);
  await app.init();
  if (E2E_PLATFORM === 'fastify') {
    await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
  }
  return app;
}

describe(`shedRememberedRejections() set up by hand (${E2E_PLATFORM})`, () => {
  let redis: TestRedis;
  let app: INestApplication;

  beforeAll(async () => {
    redis = await startTestRedis();
    app = await createApp(redis.url, (created) =>
      shedRememberedRejections(created, { maxPaths: 8 }),
    );
  });
  afterAll(async () => {
    await app?.close();
    await redis?.close();
  });

  const get = (path: string, ip: string) =>
    request(app.getHttpServer()).get(path).set('X-Forwarded-For', ip);

  it('remembers at most maxPaths paths under a flood of random ones, the latest shed', async () => {
    const ip = '203.0.113.21';
    expect((await get('/flood/items/first', ip)).status).toBe(200);
    const routes = app.get(RejectedRoutes);
    const sizes: number[] = [];
    for (let i = 0; i < 40; i++) {
      // A new path: the guard answers it (from the remembered rejection) and teaches it.
      const before = seen.filter;
      expect(
        (await get(`/flood/items/${Math.random().toString(36).slice(2)}-${i}`, ip)).status,
      ).toBe(429);
      expect(seen.filter).toBe(before + 1);
      sizes.push(routes.size);
    }
    expect(Math.max(...sizes)).toBe(8);
    expect(sizes.at(-1)).toBe(8);

    // A path it still remembers is shed; one it forgot goes through the guard again.
    const latest = `/flood/items/latest`;
    await get(latest, ip);
    const before = seen.filter;
    expect((await get(latest, ip)).status).toBe(429);
    expect(seen.filter).toBe(before);
    expect(routes.size).toBe(8);
  });

  it('is seen by Nest middleware on Fastify only (middie runs in an earlier onRequest hook)', async () => {
    const ip = '203.0.113.22';
    const first = { ...seen };
    await get('/flood/items/a', ip);
    await get('/flood/items/a', ip); // the guard's 429: taught
    expect(seen.middleware - first.middleware).toBe(2);
    const before = { ...seen };
    expect((await get('/flood/items/a', ip)).status).toBe(429);
    expect(seen.filter - before.filter).toBe(0);
    expect(seen.middleware - before.middleware).toBe(E2E_PLATFORM === 'fastify' ? 1 : 0);
  });

  it('refuses to be installed after init, or twice', () => {
    expect(() => shedRememberedRejections(app)).toThrow(RateLimitConfigError);
    expect(() => shedRememberedRejections(app)).toThrow(
      /"app" is initialised already: call it before app.init\(\) \/ app.listen\(\)/,
    );
  });

  it('refuses a second install and a bad maxPaths before init', async () => {
    const fresh = await NestFactory.create(floodModule(redis.url), fixtureAdapter(), {
      logger: false,
    });
    try {
      expect(() => shedRememberedRejections(fresh, { maxPaths: 0 })).toThrow(/"maxPaths" must be/);
      shedRememberedRejections(fresh);
      expect(() => shedRememberedRejections(fresh)).toThrow(/"app" sheds already/);
    } finally {
      await fresh.close();
    }
  });
});

describe(`shedRememberedRejections() with versioning by header (${E2E_PLATFORM})`, () => {
  let redis: TestRedis;
  let app: INestApplication;

  beforeAll(async () => {
    redis = await startTestRedis();
    app = await createApp(redis.url, (created) => {
      created.enableVersioning({ type: VersioningType.HEADER, header: 'X-Version' });
      shedRememberedRejections(created);
    });
  });
  afterAll(async () => {
    await app?.close();
    await redis?.close();
  });

  it('sheds nothing: one path may reach another handler by its header', async () => {
    const ip = '203.0.113.23';
    const before = seen.filter;
    for (let i = 0; i < 4; i++) {
      await request(app.getHttpServer()).get('/flood/items/v').set('X-Forwarded-For', ip);
    }
    expect(seen.filter - before).toBe(3);
    expect(app.get(RejectedRoutes).enabled).toBe(false);
  });
});
