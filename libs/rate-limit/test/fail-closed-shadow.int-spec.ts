import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { RateLimitGuard } from '../src/guard/rate-limit.guard';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { RateLimiterService } from '../src/service/rate-limiter.service';
import { findFreePort } from './support/processes/free-port';

@Controller()
class MixedModesController {
  @Get('shadow')
  @RateLimit({ name: 'observed', limit: 5, window: '1m', mode: 'shadow' })
  shadow() {
    return 'ok';
  }

  @Get('enforced')
  @RateLimit({ name: 'enforced', limit: 5, window: '1m' })
  enforced() {
    return 'ok';
  }

  @Get('both')
  @RateLimit({ name: 'both-observed', limit: 5, window: '1m', mode: 'shadow' })
  @RateLimit({ name: 'both-enforced', limit: 5, window: '1m' })
  both() {
    return 'ok';
  }
}

// onRedisError 'closed' with no Redis at all (nothing listens on the port): only a policy that
// enforces may turn an outage into a 503; one that only observes lets the request through.
describe("onRedisError 'closed' while Redis is unreachable", () => {
  let app: INestApplication;

  beforeAll(async () => {
    const port = await findFreePort();
    const moduleRef = await Test.createTestingModule({
      imports: [
        RateLimitModule.forRoot({ redis: `redis://127.0.0.1:${port}`, onRedisError: 'closed' }),
      ],
      controllers: [MixedModesController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  let closed = false;
  afterAll(async () => {
    if (!closed) await app?.close();
  });

  it('lets a route whose only policy is in shadow mode through', async () => {
    await request(app.getHttpServer()).get('/shadow').expect(200);
  });

  it('answers 503 where a policy enforces, alone or stacked with a shadow one', async () => {
    await request(app.getHttpServer()).get('/enforced').expect(503);
    await request(app.getHttpServer()).get('/both').expect(503);
  });

  it('consume() of a shadow policy is allowed, of an enforced one refused, both fail-closed', async () => {
    const limiter = app.get(RateLimiterService);
    expect(await limiter.consume('observed', 'user:1')).toMatchObject({
      allowed: true,
      source: 'fail-closed',
    });
    expect(await limiter.consume('enforced', 'user:1')).toMatchObject({
      allowed: false,
      source: 'fail-closed',
    });
  });

  // Neither the client nor the Pub/Sub subscriber ever connected: a QUIT would wait for them.
  it('shuts down within 3 s though Redis never answered', async () => {
    const started = performance.now();
    await app.close();
    closed = true;
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
