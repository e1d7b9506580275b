import type { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import request from 'supertest';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { within } from '../support/within';
import { windowWithoutBoundary } from '../support/window-headroom';
import { ADMIN_AUTH as auth, createFixtureApp, type FixtureApp } from './fixtures/fixture-app';
import { limitedController } from './fixtures/limited-controller';
import { planPolicy } from './fixtures/plan-policy';

/**
 * Tiers and client overrides through the admin API on TWO instances of a fixture app sharing
 * one Redis: what an operator sets on one, the other enforces (client overrides from its first
 * request, tiers within 100 ms), messages and headers as documented, expiry on time, and a
 * remembered rejection lifted with the override. (The multi-process proof under bursts, on one
 * Redis and on a Cluster, is test/load/tiers-and-overrides.e2e-spec.ts.)
 */
const POLICY = 'fx.plan';
// 5 per client (tiers: pro 20, enterprise 50): no window ends during a test, wherever the clock is.
const PLAN = limitedController('api', { plan: [planPolicy(POLICY, windowWithoutBoundary())] });

describe('tiers and client overrides across two instances', () => {
  let redis: TestRedis;
  let raw: Redis;
  let a: INestApplication;
  let b: INestApplication;
  let prefix: string;

  const hit = (app: INestApplication, ip: string, plan?: string) => {
    const req = request(app.getHttpServer()).get('/api/plan').set('X-Forwarded-For', ip);
    return plan === undefined ? req : req.set('X-Plan', plan);
  };
  const statuses = async (app: INestApplication, ip: string, n: number, plan?: string) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await hit(app, ip, plan)).status);
    return out;
  };
  const admin = (app: INestApplication) => request(app.getHttpServer());
  const clientPath = (ip: string) =>
    `/admin/policies/${POLICY}/clients/${encodeURIComponent(`ip:${ip}`)}`;

  beforeAll(async () => {
    redis = await startTestRedis();
    raw = new Redis(redis.url);
  });
  afterAll(async () => {
    raw.disconnect();
    await redis.close();
  });
  beforeEach(async () => {
    prefix = uniquePrefix();
    const fixture: FixtureApp = {
      limiter: {
        redis: redis.url,
        keyPrefix: prefix,
        commandTimeoutMs: 2_000,
        policyRefreshMs: 200,
        trustProxy: 'loopback',
      },
      controllers: [PLAN],
      admin: true,
    };
    [a, b] = await Promise.all([createFixtureApp(fixture), createFixtureApp(fixture)]);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('decides each tier on its thresholds, shows them in headers and in the admin API', async () => {
    expect(await statuses(a, '198.51.100.10', 6)).toEqual([200, 200, 200, 200, 200, 429]);
    const pro = await hit(b, '198.51.100.11', 'pro');
    expect(pro.headers['ratelimit-limit']).toBe('20');
    expect((await statuses(a, '198.51.100.11', 20, 'pro')).filter((s) => s === 200)).toHaveLength(
      19,
    );
    const unknown = await hit(a, '198.51.100.12', 'gold');
    expect(unknown.headers['ratelimit-limit']).toBe('5');
    const view = (await admin(a).get(`/admin/policies/${POLICY}`).set(auth).expect(200)).body;
    expect(
      view.tiers.map((t: { name: string; limit: number; burst: number }) => [
        t.name,
        t.limit,
        t.burst,
      ]),
    ).toEqual([
      ['pro', 20, 20],
      ['enterprise', 50, 100],
    ]);
  });

  it('a tier changed on one instance applies on the other within 100 ms; direct hash writes too', async () => {
    await admin(a)
      .patch(`/admin/policies/${POLICY}/tiers/pro`)
      .set(auth)
      .send({ limit: 2 })
      .expect(200);
    await within(
      100,
      async () => (await hit(b, '198.51.100.20', 'pro')).headers['ratelimit-limit'] === '2',
    );
    expect(await statuses(b, '198.51.100.21', 3, 'pro')).toEqual([200, 200, 429]);
    // An operator's redis-cli HSET reaches every instance by the refresh (200 ms here).
    expect((await hit(a, '198.51.100.22', 'enterprise')).headers['ratelimit-limit']).toBe('50');
    await raw.hset(`${prefix}:policy:${POLICY}`, 'tier.enterprise.limit', '3');
    await within(1_000, async () => {
      const res = await hit(b, '198.51.100.23', 'enterprise');
      return res.headers['ratelimit-limit'] === '3';
    });
  });

  it('a client quota set on one instance is enforced by the other from its first request, and listed', async () => {
    const ip = '198.51.100.30';
    const set = await admin(a).put(clientPath(ip)).set(auth).send({ limit: 2 }).expect(200);
    expect(set.body).toMatchObject({
      identity: `ip:${ip}`,
      action: 'quota',
      limit: 2,
      expiresAt: null,
    });
    expect(await statuses(b, ip, 3, 'pro')).toEqual([200, 200, 429]);
    const listed = (await admin(b).get(`/admin/policies/${POLICY}/clients`).set(auth).expect(200))
      .body;
    expect(listed.items.map((i: { identity: string }) => i.identity)).toEqual([`ip:${ip}`]);
    await admin(b).delete(clientPath(ip)).set(auth).expect(204);
    await admin(a).get(clientPath(ip)).set(auth).expect(404);
  });

  it('deny answers its own message with no Retry-After; allow is never limited', async () => {
    const denied = '198.51.100.40';
    await admin(a)
      .put(clientPath(denied))
      .set(auth)
      .send({ action: 'deny', message: 'Account suspended' })
      .expect(200);
    const res = await hit(b, denied);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      statusCode: 429,
      message: 'Account suspended',
      policy: POLICY,
      retryAfter: 0,
    });
    expect(res.headers['retry-after']).toBeUndefined();
    const allowed = '198.51.100.41';
    await admin(b).put(clientPath(allowed)).set(auth).send({ action: 'allow' }).expect(200);
    expect(new Set(await statuses(a, allowed, 12))).toEqual(new Set([200]));
  });

  it('a remembered rejection is forgotten on every instance when an override lifts the client', async () => {
    const ip = '198.51.100.50';
    // Exhausted on B: B now answers this client from memory, without asking Redis.
    expect(await statuses(b, ip, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    await admin(a).put(clientPath(ip)).set(auth).send({ action: 'allow' }).expect(200);
    await within(100, async () => (await hit(b, ip)).status === 200);
    expect(await statuses(b, ip, 3)).toEqual([200, 200, 200]);
  });

  it('a temporary override vanishes by itself on time, on every instance', async () => {
    const ip = '198.51.100.60';
    const expiresAt = Date.now() + 800;
    await admin(a)
      .put(clientPath(ip))
      .set(auth)
      .send({ action: 'deny', expiresAt: new Date(expiresAt).toISOString() })
      .expect(200);
    expect((await hit(b, ip)).status).toBe(429);
    expect((await admin(b).get(clientPath(ip)).set(auth).expect(200)).body.expiresAt).toBe(
      new Date(expiresAt).toISOString(),
    );
    // Waits on the clock itself: the expiry is the event under test.
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 5));
    expect((await hit(b, ip)).status).toBe(200);
    expect((await hit(a, ip)).status).toBe(200);
    await admin(a).get(clientPath(ip)).set(auth).expect(404);
    const listed = (await admin(a).get(`/admin/policies/${POLICY}/clients`).set(auth).expect(200))
      .body;
    expect(listed.items).toEqual([]);
  });

  it('counts decisions per tier across both instances', async () => {
    await statuses(a, '198.51.100.70', 3, 'pro');
    await statuses(b, '198.51.100.71', 2, 'pro');
    await statuses(b, '198.51.100.72', 6);
    await within(3_000, async () => {
      const view = (await admin(a).get(`/admin/policies/${POLICY}`).set(auth)).body;
      const pro = view.tiers.find((t: { name: string }) => t.name === 'pro');
      return view.stats.allowed === 10 && view.stats.rejected === 1 && pro.stats.allowed === 5;
    });
  });
});
