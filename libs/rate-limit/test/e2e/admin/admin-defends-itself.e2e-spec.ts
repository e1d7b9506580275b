import type { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import request from 'supertest';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { within } from '../../support/within';
import { createFixtureApp } from '../fixtures/fixture-app';
import { algorithmsController } from '../fixtures/limited-controller';

/**
 * The admin API defends itself (SPEC section 11): failed token attempts are limited per client
 * across instances, and a change that is written answers as written even when it could not be
 * announced (it once answered 503 "nothing was changed" while every instance applied it).
 */
const TOKEN = 'defends-itself-admin-token-0123456789';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
/** `/api/gcra`: a limited route whose keys a reset deletes. */
const GCRA = algorithmsController('api', { limit: 5, window: '10s' }, ['gcra']);

let redis: TestRedis;
let raw: Redis;
beforeAll(async () => {
  redis = await startTestRedis();
  raw = new Redis(redis.url);
});
afterAll(async () => {
  raw.disconnect();
  await redis.close();
});

describe('failed token attempts', () => {
  let a: INestApplication;
  let b: INestApplication;

  beforeAll(async () => {
    const fixture = {
      limiter: { redis: redis.url, keyPrefix: uniquePrefix(), trustProxy: 'loopback' as const },
      admin: { token: TOKEN, failedTokenLimit: { limit: 5, window: '15m' } },
    };
    [a, b] = await Promise.all([createFixtureApp(fixture), createFixtureApp(fixture)]);
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  const from = (app: INestApplication, address: string, auth?: Record<string, string>) =>
    request(app.getHttpServer())
      .get('/admin/policies')
      .set('X-Forwarded-For', address)
      .set(auth ?? {});

  it('5 failures per client across both instances, then 429 with Retry-After; a right token still passes', async () => {
    const guesser = '203.0.113.50';
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const auth = i % 2 ? { Authorization: `Bearer guess-${i}` } : undefined;
      statuses.push((await from(i % 2 ? a : b, guesser, auth)).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const sixth = await from(a, guesser, { Authorization: 'Bearer guess-6' });
    expect(sixth.status).toBe(429);
    expect(sixth.body).toMatchObject({ statusCode: 429, policy: 'rate-limit-admin.failed-token' });
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(800); // about 15 minutes
    await from(b, guesser).expect(429); // blocked on the other instance too
    // Guessing cannot lock the operators out (behind one proxy they share an address).
    await from(a, guesser, AUTH).expect(200);
    await from(b, guesser, AUTH).expect(200);
    // Other clients are not concerned.
    await from(a, '203.0.113.52', { Authorization: 'Bearer wrong' }).expect(401);
  });

  it('a burst of 40 concurrent guesses from one client: 5 answered 401, the rest 429', async () => {
    const guesser = '203.0.113.70';
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        from(i % 2 ? a : b, guesser, { Authorization: `Bearer burst-guess-${i}` }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
  });

  it('an authenticated client is never limited', async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => from(i % 2 ? a : b, '203.0.113.60', AUTH)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
  });
});

describe('a change written but not announced', () => {
  let limited: INestApplication;
  let full: INestApplication;
  let prefix: string;

  beforeAll(async () => {
    // This instance's Redis user may write hashes but not PUBLISH: the announcement fails
    // after the write succeeded.
    await raw.call(
      'ACL',
      'SETUSER',
      'nopublish',
      'on',
      '>nopublish-pass',
      '~*',
      '&*',
      '+@all',
      '-publish',
    );
    prefix = uniquePrefix();
    const fixture = (url: string) => ({
      limiter: { redis: url, keyPrefix: prefix, policyRefreshMs: 200 },
      controllers: [GCRA],
      admin: { token: TOKEN },
    });
    const url = new URL(redis.url);
    url.username = 'nopublish';
    url.password = 'nopublish-pass';
    [limited, full] = await Promise.all([
      createFixtureApp(fixture(url.toString())),
      createFixtureApp(fixture(redis.url)),
    ]);
  });
  afterAll(() => Promise.all([limited.close(), full.close()]));

  it('PATCH answers 200 with the stored override, and every instance applies it', async () => {
    const res = await request(limited.getHttpServer())
      .patch('/admin/policies/api.gcra')
      .set(AUTH)
      .send({ limit: 2 })
      .expect(200);
    expect(res.body).toMatchObject({ limit: 2, override: { limit: 2 } });
    expect(await raw.hget(`${prefix}:policy:api.gcra`, 'limit')).toBe('2');
    // Not announced, so the other instance applies it at its refresh (200 ms here).
    await within(2_000, async () => {
      const view = await request(full.getHttpServer()).get('/admin/policies/api.gcra').set(AUTH);
      return view.body.limit === 2;
    });
  });

  it('DELETE override answers 200 with the defaults, and the hash is gone', async () => {
    await request(limited.getHttpServer())
      .delete('/admin/policies/api.gcra/override')
      .set(AUTH)
      .expect(200);
    expect(await raw.exists(`${prefix}:policy:api.gcra`)).toBe(0);
  });

  it('a write Redis did not answer in time is a 504 (it may still apply), not a 503', async () => {
    await raw.hset(`${prefix}:policy:api.gcra`, 'limit', '4');
    await redis.pause();
    let status: number;
    try {
      status = (
        await request(full.getHttpServer()).delete('/admin/policies/api.gcra/override').set(AUTH)
      ).status;
    } finally {
      await redis.resume();
    }
    expect(status).toBe(504);
    // Redis ran the DEL it had received once it could: "nothing was changed" would be wrong.
    await within(2_000, async () => (await raw.exists(`${prefix}:policy:api.gcra`)) === 0);
  });

  it('a key reset answers 204 once the keys are deleted', async () => {
    await request(full.getHttpServer()).get('/api/gcra').expect(200);
    expect(await raw.keys(`${prefix}:{*}:api.gcra:gcra`)).toHaveLength(1);
    await request(limited.getHttpServer())
      .delete(`/admin/policies/api.gcra/keys/${encodeURIComponent('ip:127.0.0.1')}`)
      .set(AUTH)
      .expect(204);
    expect(await raw.keys(`${prefix}:{*}:api.gcra:gcra`)).toHaveLength(0);
  });
});
