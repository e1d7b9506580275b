/**
 * What the guard answers over HTTP, on a fixture app with the memory store: the limit, then a
 * 429 with its headers and JSON body; rejected requests charged nothing; stacked policies all or
 * nothing; API-key identities; costs; shadow mode; a blockFor penalty.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { RateLimiterService } from '@app/rate-limit';
import { createFixtureApp } from '../fixtures/fixture-app';
import { BasicController } from './guard-controllers';

/** supertest reaches the app over loopback; the guard reports `::ffff:127.0.0.1` as IPv4. */
const LOCAL = 'ip:127.0.0.1';

describe('RateLimitGuard with the memory store and standard headers', () => {
  let app: INestApplication;
  let limiter: RateLimiterService;
  const get = (path: string) => request(app.getHttpServer()).get(path);

  beforeAll(async () => {
    app = await createFixtureApp({ controllers: [BasicController] });
    limiter = app.get(RateLimiterService);
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(async () => {
    await limiter.reset('two-per-10s', LOCAL);
  });

  it('allows the limit, then answers 429 with headers and the JSON body', async () => {
    const first = await get('/basic/two').expect(200);
    expect(first.headers['ratelimit-limit']).toBe('2');
    expect(first.headers['ratelimit-remaining']).toBe('1');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(10);
    expect(first.headers['retry-after']).toBeUndefined();

    const second = await get('/basic/two').expect(200);
    expect(second.headers['ratelimit-remaining']).toBe('0');

    const third = await get('/basic/two').expect(429);
    expect(third.headers['ratelimit-limit']).toBe('2');
    expect(third.headers['ratelimit-remaining']).toBe('0');
    expect(Number(third.headers['ratelimit-reset'])).toBeGreaterThan(0);
    const retryAfter = Number(third.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(third.headers['content-type']).toMatch(/application\/json/);
    expect(third.body).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'two-per-10s',
      retryAfter,
    });
  });

  it('does not charge rejected requests, and counts the supertest client as ip:127.0.0.1', async () => {
    await get('/basic/two').expect(200);
    await get('/basic/two').expect(200);
    await get('/basic/two').expect(429);
    await get('/basic/two').expect(429);
    expect(await limiter.peek('two-per-10s', LOCAL)).toMatchObject({
      policy: 'two-per-10s',
      limit: 2,
      remaining: 0,
    });
    expect((await limiter.peek('two-per-10s', 'ip:10.0.0.1')).remaining).toBe(2);
    // Once the two admitted requests leave the window, the rejected ones left no trace.
    expect(
      (await limiter.peek('two-per-10s', LOCAL, { nowMs: Date.now() + 10_001 })).remaining,
    ).toBe(2);
  });

  it('with stacked policies charges none when one rejects, and reports the rejecting one', async () => {
    const first = await get('/basic/stacked').expect(200);
    // The headers describe the most restrictive policy: the 2-limit one.
    expect(first.headers['ratelimit-limit']).toBe('2');
    expect(first.headers['ratelimit-remaining']).toBe('1');
    await get('/basic/stacked').expect(200);

    const rejected = await get('/basic/stacked').expect(429);
    expect(rejected.body.policy).toBe('stacked-2');
    expect(rejected.headers['ratelimit-limit']).toBe('2');

    expect((await limiter.peek('stacked-3', LOCAL)).remaining).toBe(1);
    expect((await limiter.peek('stacked-2', LOCAL)).remaining).toBe(0);
    await get('/basic/stacked').expect(429);
    expect((await limiter.peek('stacked-3', LOCAL)).remaining).toBe(1);
  });

  it('with key api-key gives each X-Api-Key its own bucket and falls back to the IP', async () => {
    await get('/basic/api-key').set('X-Api-Key', 'alpha').expect(200);
    expect((await get('/basic/api-key').set('X-Api-Key', 'alpha').expect(429)).body.policy).toBe(
      'per-api-key',
    );
    await get('/basic/api-key').set('X-Api-Key', 'beta').expect(200);
    await get('/basic/api-key').set('X-Api-Key', 'beta').expect(429);

    await get('/basic/api-key').expect(200);
    await get('/basic/api-key').expect(429);

    expect((await limiter.peek('per-api-key', 'key:alpha')).remaining).toBe(0);
    expect((await limiter.peek('per-api-key', 'key:beta')).remaining).toBe(0);
    expect((await limiter.peek('per-api-key', LOCAL)).remaining).toBe(0);
    expect((await limiter.peek('per-api-key', 'key:gamma')).remaining).toBe(1);
    await get('/basic/api-key').set('X-Api-Key', 'gamma').expect(200);
  });

  it('charges what a cost function returns', async () => {
    const first = await get('/basic/cost?units=3').expect(200);
    expect(first.headers['ratelimit-remaining']).toBe('2');
    const tooMuch = await get('/basic/cost?units=3').expect(429);
    expect(tooMuch.headers['ratelimit-remaining']).toBe('2');
    const rest = await get('/basic/cost?units=2').expect(200);
    expect(rest.headers['ratelimit-remaining']).toBe('0');
    await get('/basic/cost').expect(429);
    expect((await limiter.peek('costly', LOCAL)).remaining).toBe(0);
  });

  it('fails a request whose cost function returns no positive integer instead of letting it through', async () => {
    await get('/basic/cost?units=0').expect(500);
    await get('/basic/cost?units=1.5').expect(500);
  });

  it('lets a shadow policy report over-limit requests without rejecting them', async () => {
    const first = await get('/basic/shadow').expect(200);
    expect(first.headers['ratelimit-remaining']).toBe('0');
    for (let i = 0; i < 3; i++) {
      const over = await get('/basic/shadow').expect(200);
      expect(over.headers['ratelimit-limit']).toBe('1');
      expect(over.headers['ratelimit-remaining']).toBe('0');
      expect(over.headers['retry-after']).toBeUndefined();
    }
    const decision = await limiter.peek('shadowed', LOCAL);
    expect(decision).toMatchObject({ shadow: true, remaining: 0 });
  });

  it('does not let a shadow policy stop an enforced one from charging or rejecting', async () => {
    await get('/basic/shadow-and-enforce').expect(200);
    await get('/basic/shadow-and-enforce').expect(200);
    await get('/basic/shadow-and-enforce').expect(200);
    const rejected = await get('/basic/shadow-and-enforce').expect(429);
    expect(rejected.body.policy).toBe('enforce-3');
  });

  it('answers 429 with the blockFor penalty as Retry-After', async () => {
    await get('/basic/blocked').expect(200);
    const rejected = await get('/basic/blocked').expect(429);
    expect(Number(rejected.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    expect(Number(rejected.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(rejected.body).toMatchObject({
      policy: 'penalty',
      retryAfter: Number(rejected.headers['retry-after']),
    });
  });

  it('keeps a blocked identity rejected after its window would have allowed again', async () => {
    const identity = 'ip:198.51.100.9';
    const t0 = Date.now();
    expect(await limiter.consume('penalty', identity, 1, { nowMs: t0 })).toMatchObject({
      allowed: true,
    });

    const over = await limiter.consume('penalty', identity, 1, { nowMs: t0 + 10 });
    expect(over).toMatchObject({ allowed: false, reason: 'limit' });
    expect(over.retryAfterMs).toBeGreaterThanOrEqual(60_000);

    for (const later of [1_500, 5_000, 60_000]) {
      const blocked = await limiter.consume('penalty', identity, 1, { nowMs: t0 + 10 + later - 1 });
      expect(blocked).toMatchObject({ allowed: false, reason: 'blocked' });
      expect(blocked.retryAfterMs).toBeGreaterThan(0);
    }
    // Without blockFor the new window would have admitted it; once the penalty is over it does.
    expect(await limiter.consume('penalty', identity, 1, { nowMs: t0 + 60_011 })).toMatchObject({
      allowed: true,
    });
  });
});
