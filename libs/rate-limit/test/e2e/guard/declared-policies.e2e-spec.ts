/**
 * Which policies guard which handler, as declared: class-level policies (inherited too) under
 * each handler's own name, handler-level ones overriding them by name, @SkipRateLimit() on a
 * handler or a class, and the module's defaultPolicy. A fixture app on the memory store.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { PolicyRegistry, RateLimiterService } from '@app/rate-limit';
import { createFixtureApp } from '../fixtures/fixture-app';
import {
  BasicController,
  ClassLimitedController,
  DefaultsController,
  DerivedController,
  NamedOverrideController,
  SkippedController,
  WINDOW,
} from './guard-controllers';

/** supertest reaches the app over loopback; the guard reports `::ffff:127.0.0.1` as IPv4. */
const LOCAL = 'ip:127.0.0.1';
const STANDARD_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

describe('RateLimitGuard applying declared policies', () => {
  let app: INestApplication;
  let limiter: RateLimiterService;
  const get = (path: string) => request(app.getHttpServer()).get(path);

  beforeAll(async () => {
    app = await createFixtureApp({
      controllers: [
        BasicController,
        ClassLimitedController,
        NamedOverrideController,
        SkippedController,
        DerivedController,
      ],
    });
    limiter = app.get(RateLimiterService);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('leaves a handler without @RateLimit alone', async () => {
    const res = await get('/basic/unlimited').expect(200);
    for (const name of [...STANDARD_HEADERS, 'retry-after'])
      expect(res.headers[name]).toBeUndefined();
  });

  it('applies a class-level policy to every handler under its own <Controller>.<handler> name', async () => {
    await get('/class/a').expect(200);
    const rejected = await get('/class/a').expect(429);
    expect(rejected.body.policy).toBe('ClassLimitedController.a');

    const b = await get('/class/b').expect(200);
    expect(b.headers['ratelimit-limit']).toBe('1');
    expect((await get('/class/b').expect(429)).body.policy).toBe('ClassLimitedController.b');

    expect((await limiter.peek('ClassLimitedController.a', LOCAL)).remaining).toBe(0);
    expect((await limiter.peek('ClassLimitedController.b', LOCAL)).remaining).toBe(0);
  });

  it("applies a base class's class-level policy to a controller that extends it", async () => {
    await get('/derived/item').expect(200);
    expect((await get('/derived/item').expect(429)).body.policy).toBe('DerivedController.item');
  });

  it('registers class-level policies for route handlers only, not for other methods', async () => {
    const names = app.get(PolicyRegistry).names();
    expect(names).toEqual(expect.arrayContaining(['ClassLimitedController.a']));
    expect(names).not.toContain('ClassLimitedController.format');
  });

  it('lets a handler-level policy of the same default name override the class-level one', async () => {
    for (const remaining of ['2', '1', '0']) {
      const res = await get('/class/overridden').expect(200);
      expect(res.headers['ratelimit-limit']).toBe('3');
      expect(res.headers['ratelimit-remaining']).toBe(remaining);
    }
    expect((await get('/class/overridden').expect(429)).body.policy).toBe(
      'ClassLimitedController.overridden',
    );
  });

  it('lets a handler-level policy override a class-level policy of the same explicit name', async () => {
    await get('/named').expect(200);
    await get('/named').expect(200);
    await get('/named').expect(200);
    expect((await get('/named').expect(429)).body.policy).toBe('named-override');
  });

  it('skips a handler marked @SkipRateLimit in a limited controller', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get('/class/skipped').expect(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('skips every handler of a controller marked @SkipRateLimit, even with its own @RateLimit', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get('/skipped-class').expect(200);
      expect(res.text).toBe('free');
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('RateLimitGuard with a defaultPolicy', () => {
  const statuses = async (app: INestApplication, paths: string[]) => {
    const seen: (number | string)[] = [];
    for (const path of paths) {
      const res = await request(app.getHttpServer()).get(path);
      seen.push(res.status === 429 ? res.body.policy : res.status);
    }
    return seen;
  };

  it('with a name, shares one budget among the handlers it covers', async () => {
    const app = await createFixtureApp({
      controllers: [DefaultsController],
      limiter: { defaultPolicy: { name: 'global', limit: 2, window: WINDOW } },
    });
    try {
      expect(
        await statuses(app, ['/defaults/one', '/defaults/two', '/defaults/one', '/defaults/own']),
      ).toEqual([200, 200, 'global', 200]);
    } finally {
      await app.close();
    }
  });

  it('without a name, gives each handler its own <Controller>.<handler> budget', async () => {
    const app = await createFixtureApp({
      controllers: [DefaultsController],
      limiter: { defaultPolicy: { limit: 2, window: WINDOW } },
    });
    try {
      expect(
        await statuses(app, ['/defaults/one', '/defaults/two', '/defaults/one', '/defaults/one']),
      ).toEqual([200, 200, 200, 'DefaultsController.one']);
    } finally {
      await app.close();
    }
  });
});
