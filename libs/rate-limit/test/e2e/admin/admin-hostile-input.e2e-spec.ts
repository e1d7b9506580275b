import type { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import request from 'supertest';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { windowWithoutBoundary } from '../../support/window-headroom';
import { ADMIN_AUTH as AUTH, createFixtureApp } from '../fixtures/fixture-app';
import { limitedController } from '../fixtures/limited-controller';
import { planPolicy } from '../fixtures/plan-policy';

/**
 * What a hostile review sent the admin API, on a fixture app with a real Redis (on Express, and
 * on Fastify in the e2e-fastify project): bodies nested thousands of levels deep, cursors Redis
 * refuses, addresses spelled otherwise than the limiter keys them, deny messages a client
 * would not get as listed. Each is a 4xx that writes nothing, or is taken in the limiter's form.
 */
const POLICY = 'fx.plan';
/** 5 per client (tiers pro, enterprise), in a window that does not end during the test. */
const PLAN = limitedController('api', { plan: [planPolicy(POLICY, windowWithoutBoundary())] });

/** JSON text nested `depth` levels deep: 3,100 levels are about 24 kB, under the body limit. */
const nested = (depth: number) => `${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}`;

let redis: TestRedis;
let raw: Redis;
let app: INestApplication;
let prefix: string;
const http = () => request(app.getHttpServer());
const clientUrl = (identity: string) =>
  `/admin/policies/${POLICY}/clients/${encodeURIComponent(identity)}`;
const from = (address: string) => http().get('/api/plan').set('X-Forwarded-For', address);
/** Every key the app keeps, but the stats and instances it writes on its own. */
const written = async () =>
  (await raw.keys(`${prefix}:*`)).filter((key) => !/:(stats|instance|traffic)/.test(key));

beforeAll(async () => {
  redis = await startTestRedis();
  raw = new Redis(redis.url);
  prefix = uniquePrefix();
  app = await createFixtureApp({
    limiter: { redis: redis.url, keyPrefix: prefix, trustProxy: 'loopback' },
    controllers: [PLAN],
    admin: { dashboard: { path: 'dashboard' } },
  });
});
afterAll(async () => {
  await app?.close();
  raw.disconnect();
  await redis.close();
});

describe('admin input', () => {
  it.each([
    ['PUT', clientUrl('ip:203.0.113.7')],
    ['PATCH', `/admin/policies/${POLICY}`],
    ['PATCH', `/admin/policies/${POLICY}/tiers/pro`],
  ])('%s %s with a body nested 3,100 levels deep: 400, nothing written', async (method, url) => {
    const before = await written();
    for (const body of [nested(3_100), `{"limit":${nested(3_100)}}`]) {
      const res = await http()
        [method === 'PUT' ? 'put' : 'patch'](url)
        .set(AUTH)
        .set('Content-Type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toEqual([expect.stringMatching(/^body must not nest/)]);
    }
    expect(await written()).toEqual(before);
  });

  it('a client-overrides cursor Redis would refuse is a 400, as in the keys listing', async () => {
    const list = (path: string, cursor: string) =>
      http().get(`/admin/policies/${POLICY}/${path}?cursor=${cursor}`).set(AUTH);
    for (const cursor of ['18446744073709551616', '99999999999999999999']) {
      const res = await list('clients', cursor);
      expect([res.status, res.body.message]).toEqual([
        400,
        'cursor must be a value returned by a previous page',
      ]);
      await list('keys', `0:${cursor}`).expect(400);
    }
    await list('clients', '18446744073709551615').expect(200);
  });

  it('an override for an address in another spelling reaches the client; an ambiguous one is 400', async () => {
    const set = await http().put(clientUrl('ip:2001:DB8::1')).set(AUTH).send({ action: 'deny' });
    expect([set.status, set.body.identity]).toEqual([200, 'ip:2001:db8:0:0::/64']);
    expect((await from('2001:db8::5')).status).toBe(429);
    await http().delete(clientUrl('ip:2001:db8::/64')).set(AUTH).expect(204);
    expect((await from('2001:db8::5')).status).toBe(200);
    const before = await written();
    const refused = await http()
      .put(clientUrl('ip:203.000.113.007'))
      .set(AUTH)
      .send({ action: 'deny' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('ip:203.0.113.7 or ip:2001:db8:0:0::/64');
    expect(await written()).toEqual(before);
  });

  it('a deny message is what its client gets: not blank, no bidi or format characters', async () => {
    for (const message of ['', ' ', 'Paid\u202eetats', 'a\u200eb', 'one\u2028two']) {
      const res = await http()
        .put(clientUrl('ip:203.0.113.8'))
        .set(AUTH)
        .send({ action: 'deny', message });
      expect(res.status).toBe(400);
      expect(res.body.message).toEqual([expect.stringMatching(/^message must not/)]);
    }
    await http().get(clientUrl('ip:203.0.113.8')).set(AUTH).expect(404);
    const set = await http().put(clientUrl('ip:203.0.113.8')).set(AUTH).send({ action: 'deny' });
    expect(set.body).not.toHaveProperty('message');
    expect((await from('203.0.113.8')).body.message).toBe('Forbidden');
    await http().delete(clientUrl('ip:203.0.113.8')).set(AUTH).expect(204);
  });

  it('every admin error and dashboard answer is nosniff', async () => {
    const answers = [
      await http().get('/admin/policies'),
      await http().get('/admin/policies/nope').set(AUTH),
      await http().put(clientUrl('ip:1.2.3.4.')).set(AUTH).send({ action: 'deny' }),
      await http().get('/admin/dashboard/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E'),
    ];
    expect(answers.map((res) => [res.status, res.headers['x-content-type-options']])).toEqual([
      [401, 'nosniff'],
      [404, 'nosniff'],
      [400, 'nosniff'],
      [404, 'nosniff'],
    ]);
  });
});
