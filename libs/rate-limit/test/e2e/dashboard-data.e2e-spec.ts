import type { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import request from 'supertest';
import { InstanceHeartbeat } from '../../src/runtime/instance-heartbeat.service';
import { PolicySync } from '../../src/runtime/policy-sync.service';
import { TrafficRecorder } from '../../src/runtime/traffic/traffic-recorder.service';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { within } from '../support/within';
import { windowWithoutBoundary } from '../support/window-headroom';
import { ADMIN_AUTH as auth, createFixtureApp, type FixtureApp } from './fixtures/fixture-app';
import { limitedController } from './fixtures/limited-controller';
import { planPolicy } from './fixtures/plan-policy';

/**
 * What the dashboard reads, on TWO instances of a fixture app sharing one Redis: traffic and
 * rejected clients summed over both, the audit log of both instances' changes (and of a direct
 * hash write, logged once), the live instances.
 */
const POLICY = 'fx.plan';
/** No window ends among a test's requests (a new one would admit a client again). */
const WINDOW_MS = windowWithoutBoundary();
const ROUTES = limitedController('api', {
  plan: [planPolicy(POLICY, WINDOW_MS)],
  keyed: [
    { name: 'fx.api-key', algo: 'token-bucket', limit: 5, window: WINDOW_MS, key: 'api-key' },
  ],
  'fixed-window': [{ name: 'fx.fixed-window', algo: 'fixed-window', limit: 5, window: WINDOW_MS }],
});

describe('dashboard data across two instances', () => {
  let redis: TestRedis;
  let raw: Redis;
  let a: INestApplication;
  let b: INestApplication;
  let prefix: string;

  const hit = (app: INestApplication, ip: string) =>
    request(app.getHttpServer()).get('/api/plan').set('X-Forwarded-For', ip);
  const hits = async (app: INestApplication, ip: string, n: number) => {
    for (let i = 0; i < n; i++) await hit(app, ip);
  };
  const admin = (app: INestApplication, path: string) =>
    request(app.getHttpServer()).get(path).set(auth);
  const flushBoth = () => Promise.all([a, b].map((app) => app.get(TrafficRecorder).flush()));
  const sum = (values: number[]) => values.reduce((x, y) => x + y, 0);

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
        policyRefreshMs: 100,
        statsFlushMs: 60_000,
        trustProxy: 'loopback',
      },
      controllers: [ROUTES],
      admin: true,
    };
    [a, b] = await Promise.all([createFixtureApp(fixture), createFixtureApp(fixture)]);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('sums traffic of both instances per 10 s bucket, per policy and in the overview', async () => {
    await hits(a, '198.51.100.1', 7); // 5 allowed, 2 rejected
    await hits(b, '198.51.100.2', 3); // 3 allowed
    await flushBoth();
    const one = (await admin(b, `/admin/policies/${POLICY}/traffic?minutes=5`).expect(200)).body;
    expect(one.bucketMs).toBe(10_000);
    expect(one.allowed).toHaveLength(30);
    // The last bucket is in progress: the series ends now, within it.
    expect(one.end - one.start).toBeGreaterThan(290_000);
    expect(one.end - one.start).toBeLessThanOrEqual(300_000);
    expect([sum(one.allowed), sum(one.rejected), sum(one.shadowRejected)]).toEqual([8, 2, 0]);
    const all = (await admin(a, '/admin/traffic?minutes=60').expect(200)).body;
    expect(all.policies[POLICY].allowed).toHaveLength(360);
    expect(sum(all.policies[POLICY].allowed)).toBe(8);
    expect(sum(all.policies['fx.fixed-window'].allowed)).toBe(0);
  });

  it('ranks the most rejected clients over both instances, as the admin API lists them', async () => {
    await hits(a, '198.51.100.7', 9); // 4 rejected on a
    await hits(b, '198.51.100.7', 3); // 3 more on b
    await hits(b, '198.51.100.8', 6); // 1 rejected
    await hits(a, '198.51.100.9', 5); // none
    await flushBoth();
    const top = (await admin(a, `/admin/policies/${POLICY}/top-rejected`).expect(200)).body;
    expect(top).toEqual({
      minutes: 5,
      items: [
        { identity: 'ip:198.51.100.7', rejected: 7 },
        { identity: 'ip:198.51.100.8', rejected: 1 },
      ],
    });
  });

  it('ranks API-key clients by fingerprint: the raw key is neither listed nor kept in Redis', async () => {
    const key = 'sk_live_dashboard_secret_0123456789';
    for (let i = 0; i < 8; i++) {
      await request(a.getHttpServer()).get('/api/keyed').set('X-Api-Key', key);
    }
    await flushBoth();
    const top = (await admin(a, '/admin/policies/fx.api-key/top-rejected').expect(200)).body;
    expect(top.items).toHaveLength(1);
    expect(top.items[0].rejected).toBe(3);
    expect(top.items[0].identity).toMatch(/^key:sk_l…\(hmac:/);
    const keys = await raw.keys(`${prefix}:rejected:*`);
    expect(keys).toHaveLength(1);
    const members = await raw.zrange(keys[0], '0', '-1');
    expect(members.join()).not.toContain(key);
    // Kept for the minutes the dashboard shows, then gone by itself.
    const ttl = await raw.pttl(keys[0]);
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(11 * 60_000);
  });

  it('audits client overrides with what they replaced', async () => {
    const path = `/admin/policies/${POLICY}/clients/${encodeURIComponent('ip:198.51.100.50')}`;
    const put = (body: object) =>
      request(a.getHttpServer()).put(path).set(auth).send(body).expect(200);
    await put({ action: 'quota', limit: 10 });
    await put({ action: 'deny', message: 'no' });
    await request(b.getHttpServer()).delete(path).set(auth).expect(204);
    const entries = (await admin(b, `/admin/audit?policy=${POLICY}`).expect(200)).body.items;
    expect(
      entries.map((e: { action: string; before: unknown; after: unknown }) => [
        e.action,
        e.before,
        e.after,
      ]),
    ).toEqual([
      ['client-override-remove', { action: 'deny', message: 'no' }, null],
      ['client-override-set', { action: 'quota', limit: 10 }, { action: 'deny', message: 'no' }],
      ['client-override-set', null, { action: 'quota', limit: 10 }],
    ]);
  });

  it('keeps an audit log of changes and resets made on either instance, and of direct hash writes once', async () => {
    await request(a.getHttpServer())
      .patch(`/admin/policies/${POLICY}`)
      .set(auth)
      .send({ limit: 9 })
      .expect(200);
    await request(b.getHttpServer())
      .delete(`/admin/policies/${POLICY}/keys/${encodeURIComponent('ip:198.51.100.3')}`)
      .set(auth)
      .expect(204);
    const entries = (await admin(b, `/admin/audit?policy=${POLICY}`).expect(200)).body.items;
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['reset', 'update']);
    const [reset, update] = entries;
    expect(update).toMatchObject({
      policy: POLICY,
      before: {
        algo: 'fixed-window',
        limit: 5,
        windowMs: WINDOW_MS,
        mode: 'enforce',
        enabled: true,
      },
      after: { limit: 9, windowMs: WINDOW_MS, tiers: { pro: { limit: 20 } } },
      source: 'api',
    });
    expect(reset).toMatchObject({ identity: 'ip:198.51.100.3', source: 'api' });
    expect(update.instance).toBe(a.get(InstanceHeartbeat).id);
    expect(reset.instance).toBe(b.get(InstanceHeartbeat).id);

    await raw.hset(`${prefix}:policy:${POLICY}`, 'limit', '11');
    const hashWrites = async () =>
      (await admin(a, `/admin/audit?policy=${POLICY}`).expect(200)).body.items.filter(
        (e: { source: string }) => e.source === 'hash',
      );
    await within(5_000, async () => (await hashWrites()).length > 0);
    // Three more refreshes on each instance: every one of them has read the new state twice.
    for (let i = 0; i < 3; i++) {
      await Promise.all([a, b].map((app) => app.get(PolicySync).refresh()));
    }
    const [written] = await hashWrites();
    expect(written).toMatchObject({
      action: 'hash-write',
      before: { limit: 9 },
      after: { limit: 11 },
    });
    expect(await hashWrites()).toHaveLength(1);
  });

  it('lists both live instances, the answering one marked', async () => {
    const view = (await admin(a, '/admin/instances').expect(200)).body;
    expect(view.redis).toBe('up');
    const ids = [a, b].map((app) => app.get(InstanceHeartbeat).id);
    expect(view.instances.map((i: { id: string }) => i.id).sort()).toEqual([...ids].sort());
    const self = view.instances.find((i: { self: boolean }) => i.self);
    expect(self).toMatchObject({ id: ids[0], store: 'redis', breaker: 'closed', fallback: false });
    expect(self.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('skips a live instance whose report was overwritten by hand, and still reads Redis as up', async () => {
    await raw.zadd(`${prefix}:instances`, Date.now() + 60_000, 'junk');
    await raw.hset(`${prefix}:instance:junk`, 'a', 'b');
    const view = (await admin(a, '/admin/instances').expect(200)).body;
    expect(view.redis).toBe('up');
    expect(view.instances).toHaveLength(2);
  });

  it('validates queries and names, behind the token', async () => {
    await request(a.getHttpServer()).get('/admin/traffic').expect(401);
    await admin(a, '/admin/traffic?minutes=0').expect(400);
    await admin(a, '/admin/traffic?minutes=61').expect(400);
    await admin(a, `/admin/policies/${POLICY}/top-rejected?minutes=11`).expect(400);
    await admin(a, '/admin/policies/nope/traffic').expect(404);
    await admin(a, '/admin/audit?policy=nope').expect(404);
    await admin(a, '/admin/audit?limit=0').expect(400);
  });
});
