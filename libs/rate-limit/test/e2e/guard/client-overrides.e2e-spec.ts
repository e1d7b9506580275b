/**
 * Client overrides as the guard answers them over HTTP, on a fixture app with the memory store:
 * a deny's own message and no Retry-After, nothing charged, an allow never rejected.
 */
import { Controller, Get, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { ClientOverrides, RateLimit, RateLimiterService } from '@app/rate-limit';
import { createFixtureApp } from '../fixtures/fixture-app';
import { WINDOW } from './guard-controllers';

/** supertest reaches the app over loopback; the guard reports `::ffff:127.0.0.1` as IPv4. */
const LOCAL = 'ip:127.0.0.1';

@Controller('guarded')
class GuardedController {
  @Get()
  @RateLimit({ name: 'guarded', limit: 1, window: WINDOW })
  guarded() {
    return 'ok';
  }

  @Get('stacked')
  @RateLimit({ name: 'guarded', limit: 1, window: WINDOW })
  @RateLimit({ name: 'roomy', limit: 10, window: WINDOW })
  stacked() {
    return 'ok';
  }

  @Get('tight')
  @RateLimit({ name: 'tight', limit: 1, window: WINDOW })
  @RateLimit({ name: 'guarded', limit: 1, window: WINDOW })
  tight() {
    return 'ok';
  }
}

describe('RateLimitGuard with client overrides (memory store)', () => {
  let app: INestApplication;
  let overrides: ClientOverrides;
  let limiter: RateLimiterService;
  const get = (path = '/guarded') => request(app.getHttpServer()).get(path);

  beforeAll(async () => {
    app = await createFixtureApp({ controllers: [GuardedController] });
    overrides = app.get(ClientOverrides);
    limiter = app.get(RateLimiterService);
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(async () => {
    await overrides.remove('guarded', LOCAL);
    await limiter.reset('guarded', LOCAL);
    await limiter.reset('roomy', LOCAL);
    await limiter.reset('tight', LOCAL);
  });

  it("answers a denied client 429 with the override's message, its policy and no Retry-After", async () => {
    await overrides.set('guarded', LOCAL, { action: 'deny', message: 'Account suspended' });
    const denied = await get().expect(429);
    expect(denied.body).toEqual({
      statusCode: 429,
      message: 'Account suspended',
      policy: 'guarded',
      retryAfter: 0,
    });
    expect(denied.headers['retry-after']).toBeUndefined();
    expect(denied.headers['content-type']).toMatch(/application\/json/);
  });

  it("answers 'Forbidden' to a client denied without a message", async () => {
    await overrides.set('guarded', LOCAL, { action: 'deny' });
    const denied = await get().expect(429);
    expect(denied.body).toMatchObject({ message: 'Forbidden', policy: 'guarded' });
    expect(denied.headers['retry-after']).toBeUndefined();
  });

  it('charges no other policy of a request a deny rejects', async () => {
    await overrides.set('guarded', LOCAL, { action: 'deny' });
    expect((await get('/guarded/stacked').expect(429)).body.policy).toBe('guarded');
    expect((await limiter.peek('roomy', LOCAL)).remaining).toBe(10);
  });

  it('answers the deny, not a longer wait of another policy the client is over', async () => {
    await limiter.consume('tight', LOCAL);
    expect((await limiter.peek('tight', LOCAL)).remaining).toBe(0);
    await overrides.set('guarded', LOCAL, { action: 'deny', message: 'Account suspended' });
    const denied = await get('/guarded/tight').expect(429);
    expect(denied.body).toEqual({
      statusCode: 429,
      message: 'Account suspended',
      policy: 'guarded',
      retryAfter: 0,
    });
    expect(denied.headers['retry-after']).toBeUndefined();
  });

  it('admits the client again once its deny is removed', async () => {
    await overrides.set('guarded', LOCAL, { action: 'deny' });
    await get().expect(429);
    await overrides.remove('guarded', LOCAL);
    await get().expect(200);
  });

  it('never rejects an allow client, charging it while within the limit', async () => {
    await overrides.set('guarded', LOCAL, { action: 'allow' });
    for (let i = 0; i < 5; i++) await get().expect(200);
    expect((await limiter.peek('guarded', LOCAL)).remaining).toBe(0);
    await overrides.remove('guarded', LOCAL);
    expect((await get().expect(429)).body.message).toBe('Too Many Requests');
  });
});
