import type { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import request from 'supertest';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { createDemoApp } from './utils/create-demo-app';
import { within } from '../libs/rate-limit/test/support/within';
import { PolicyRegistry } from '../libs/rate-limit/src/registry/policy-registry';
import type { RateLimitPolicy } from '../libs/rate-limit/src/policy/rate-limit-policy.interface';

/**
 * The admin API on TWO demo instances sharing one Redis: what an operator changes on one is
 * enforced by the other at once, and usage, resets and stats cover both.
 */
const TOKEN = 'e2e-admin-token-0123456789abcdefghij';
const auth = { Authorization: `Bearer ${TOKEN}` };

describe('admin API across two demo instances', () => {
  let redis: TestRedis;
  let raw: Redis;
  let a: INestApplication;
  let b: INestApplication;
  let prefix: string;
  const figures: string[] = [];

  const policyOn = async (app: INestApplication, name: string) =>
    (await request(app.getHttpServer()).get(`/admin/policies/${name}`).set(auth)).body;
  /**
   * When `app` applies a change of policy `name` that `applied` accepts (its registry's own
   * event, so the time is the instance's, not that of the next poll of its admin API: under a
   * loaded host each poll is itself an HTTP round trip of tens of ms). Call before the change.
   */
  const appliedOn = (
    app: INestApplication,
    name: string,
    applied: (policy: RateLimitPolicy) => boolean,
  ): Promise<number> =>
    new Promise((resolve) =>
      app.get(PolicyRegistry, { strict: false }).onChange((changed, policy) => {
        if (changed === name && applied(policy)) resolve(performance.now());
      }),
    );

  beforeAll(async () => {
    redis = await startTestRedis();
    raw = new Redis(redis.url);
  });
  afterAll(async () => {
    console.log(figures.join('\n'));
    raw.disconnect();
    await redis.close();
  });
  beforeEach(async () => {
    prefix = uniquePrefix();
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: prefix,
      ADMIN_TOKEN: TOKEN,
      // Bursts of 100 concurrent requests: no test here is about timeouts (see redis-down).
      RATE_LIMIT_TIMEOUT_MS: '2000',
      TRUST_PROXY: 'loopback',
    };
    [a, b] = await Promise.all([createDemoApp(env), createDemoApp(env)]);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('lists every policy with its routes, defaults, override and stats', async () => {
    const res = await request(a.getHttpServer()).get('/admin/policies').set(auth).expect(200);
    const names = res.body.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'demo.gcra',
        'demo.stacked-client',
        'demo.stacked-route',
        'demo.api-key',
      ]),
    );
    const gcra = res.body.find((p: { name: string }) => p.name === 'demo.gcra');
    expect(gcra).toMatchObject({
      algo: 'gcra',
      limit: 5,
      windowMs: 10_000,
      burst: 5,
      mode: 'enforce',
      enabled: true,
      routes: [{ method: 'GET', path: '/api/gcra' }],
      override: null,
      stats: { allowed: 0, rejected: 0, shadowRejected: 0 },
    });
    await request(a.getHttpServer()).get('/admin/policies/nope').set(auth).expect(404);
  });

  it('a PATCH on one instance is enforced by the other within 100 ms', async () => {
    const appliedOnB = appliedOn(b, 'demo.sliding-window', (policy) => policy.limit === 2);
    const started = performance.now();
    const patched = await request(a.getHttpServer())
      .patch('/admin/policies/demo.sliding-window')
      .set(auth)
      .send({ limit: 2, window: '1m' })
      .expect(200);
    expect(patched.body).toMatchObject({
      limit: 2,
      windowMs: 60_000,
      override: { limit: 2, windowMs: 60_000 },
    });
    const propagationMs = (await appliedOnB) - started;
    // Applied on B: its admin API and its decisions (below) show limit 2 from now on.
    const onB = await request(b.getHttpServer())
      .get('/admin/policies/demo.sliding-window')
      .set(auth);
    expect(onB.body.limit).toBe(2);
    figures.push(
      `PATCH on A -> enforced on B after ${propagationMs.toFixed(1)} ms (including the PATCH round trip)`,
    );
    expect(propagationMs).toBeLessThan(100);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(b.getHttpServer())
        .get('/api/sliding-window')
        .set('X-Forwarded-For', '198.51.100.1');
      statuses.push(res.status);
      if (i === 0) expect(res.headers['ratelimit-limit']).toBe('2');
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('a hash written directly with redis-cli HSET is applied within the refresh interval (5 s)', async () => {
    await raw.hset(`${prefix}:policy:demo.fixed-window`, 'limit', '1', 'mode', 'enforce');
    const appliedMs = await within(
      5_000 + 200,
      async () =>
        (await policyOn(b, 'demo.fixed-window')).limit === 1 &&
        (await policyOn(a, 'demo.fixed-window')).limit === 1,
    );
    figures.push(
      `direct HSET applied on both instances after ${appliedMs.toFixed(0)} ms (refresh interval 5000 ms)`,
    );
    const statuses = [];
    for (let i = 0; i < 2; i++)
      statuses.push(
        (
          await request(a.getHttpServer())
            .get('/api/fixed-window')
            .set('X-Forwarded-For', '198.51.100.2')
        ).status,
      );
    expect(statuses).toEqual([200, 429]);
  });

  it('DELETE override restores the decorator defaults on both instances', async () => {
    const disabledOnB = appliedOn(b, 'demo.gcra', (policy) => policy.enabled === false);
    await request(a.getHttpServer())
      .patch('/admin/policies/demo.gcra')
      .set(auth)
      .send({ limit: 1, mode: 'shadow', enabled: false })
      .expect(200);
    const patchedAt = performance.now();
    expect((await disabledOnB) - patchedAt).toBeLessThan(100);
    expect((await policyOn(b, 'demo.gcra')).enabled).toBe(false);
    const restoredOnA = appliedOn(a, 'demo.gcra', (policy) => policy.enabled);
    const restored = await request(b.getHttpServer())
      .delete('/admin/policies/demo.gcra/override')
      .set(auth)
      .expect(200);
    expect(restored.body).toMatchObject({
      limit: 5,
      mode: 'enforce',
      enabled: true,
      override: null,
    });
    const deletedAt = performance.now();
    expect((await restoredOnA) - deletedAt).toBeLessThan(100);
    expect((await policyOn(a, 'demo.gcra')).enabled).toBe(true);
    expect(await raw.exists(`${prefix}:policy:demo.gcra`)).toBe(0);
  });

  // A sliding window of 10 s: nothing these requests use leaves it while the test lists keys
  // (a bucket would refill one unit every 2 s and make `used` depend on the machine's speed).
  it('keys listing shows used/remaining/resetMs and pages over 1,000 identities without missing or repeating one', async () => {
    const total = 1_000;
    const ips = Array.from({ length: total }, (_, i) => `10.20.${i >> 8}.${i & 255}`);
    for (let i = 0; i < total; i += 100) {
      await Promise.all(
        ips.slice(i, i + 100).map((ip, j) =>
          request((j % 2 ? a : b).getHttpServer())
            .get('/api/sliding-window')
            .set('X-Forwarded-For', ip),
        ),
      );
    }
    await request(a.getHttpServer()).get('/api/sliding-window').set('X-Forwarded-For', ips[0]);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await request(b.getHttpServer())
        .get('/admin/policies/demo.sliding-window/keys')
        .query({ count: 100, ...(cursor ? { cursor } : {}) })
        .set(auth)
        .expect(200);
      expect(res.body.items.length).toBeLessThanOrEqual(200);
      for (const item of res.body.items) {
        seen.push(item.identity);
        if (item.identity === `ip:${ips[0]}`) {
          expect(item).toMatchObject({ used: 2, remaining: 3 });
          expect(item.resetMs).toBeGreaterThan(0);
        }
      }
      cursor = res.body.cursor;
      pages++;
    } while (cursor !== null);
    figures.push(`keys listing: ${seen.length} identities in ${pages} pages of ~100`);
    expect(pages).toBeGreaterThanOrEqual(6);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(new Set(ips.map((ip) => `ip:${ip}`)));
  });

  // Sliding-window policies: no unit comes back during the test, whatever the machine's speed.
  it('resetting an identity lets it through again, on every instance', async () => {
    const ip = '198.51.100.3';
    for (let i = 0; i < 5; i++)
      await request(a.getHttpServer())
        .get('/api/sliding-window')
        .set('X-Forwarded-For', ip)
        .expect(200);
    await request(b.getHttpServer())
      .get('/api/sliding-window')
      .set('X-Forwarded-For', ip)
      .expect(429);
    await request(a.getHttpServer())
      .delete(`/admin/policies/demo.sliding-window/keys/${encodeURIComponent(`ip:${ip}`)}`)
      .set(auth)
      .expect(204);
    const res = await request(b.getHttpServer())
      .get('/api/sliding-window')
      .set('X-Forwarded-For', ip)
      .expect(200);
    expect(res.headers['ratelimit-remaining']).toBe('4');
  });

  it.each(['1739', 'abc', '0:1:2', '0:99999999999999999999'])(
    'keys listing answers 400 for a cursor no page gave out (%j)',
    async (cursor) => {
      const res = await request(a.getHttpServer())
        .get('/admin/policies/demo.gcra/keys')
        .query({ cursor })
        .set(auth)
        .expect(400);
      expect(res.body.message).toMatch(/cursor/);
    },
  );

  // A key encodes to more than 96 characters, so its Redis key holds a readable prefix and a hash.
  // An API key is a secret: Redis keys, the listing and the logs hold its fingerprint only.
  it('lists an API key by its fingerprint with its real usage, and resets it by that or the raw key', async () => {
    const apiKey = `sk_live_${'k'.repeat(150)}`;
    const keyed = (app: INestApplication) =>
      request(app.getHttpServer()).get('/api/keyed').set('X-Api-Key', apiKey);
    const listed = async () =>
      (
        await request(b.getHttpServer())
          .get('/admin/policies/demo.api-key/keys')
          .set(auth)
          .expect(200)
      ).body.items;
    for (let i = 0; i < 5; i++) await keyed(i % 2 ? a : b).expect(200);
    await keyed(a).expect(429);
    const items = await listed();
    expect(items).toHaveLength(1);
    const [item] = items;
    expect(item.identity).toMatch(/^key:sk_l…\(hmac:[A-Za-z0-9_-]{22}\)$/);
    // A token bucket refills one unit per 2 s: at most one is back by now.
    expect(item.used).toBeGreaterThanOrEqual(4);
    const keys = await raw.keys(`${prefix}:*`);
    expect(keys.some((key) => key.includes('demo.api-key'))).toBe(true);
    expect(keys.join(' ')).not.toContain('kkkk');
    await request(a.getHttpServer())
      .delete(`/admin/policies/demo.api-key/keys/${encodeURIComponent(item.identity)}`)
      .set(auth)
      .expect(204);
    expect((await keyed(b).expect(200)).headers['ratelimit-remaining']).toBe('4');
    // By the raw value too.
    await request(a.getHttpServer())
      .delete(`/admin/policies/demo.api-key/keys/${encodeURIComponent(`key:${apiKey}`)}`)
      .set(auth)
      .expect(204);
    expect((await keyed(a).expect(200)).headers['ratelimit-remaining']).toBe('4');
  });

  it('stats reflect traffic on both instances within 2 s', async () => {
    const ip = '198.51.100.4';
    for (let i = 0; i < 7; i++)
      await request((i % 2 ? a : b).getHttpServer())
        .get('/api/sliding-window')
        .set('X-Forwarded-For', ip);
    const started = performance.now();
    await within(2_000, async () => {
      const stats = (await policyOn(a, 'demo.sliding-window')).stats;
      return stats.allowed === 5 && stats.rejected === 2;
    });
    figures.push(
      `stats of both instances visible after ${(performance.now() - started).toFixed(0)} ms`,
    );
    const shadowOnB = appliedOn(b, 'demo.sliding-window', (policy) => policy.mode === 'shadow');
    await request(a.getHttpServer())
      .patch('/admin/policies/demo.sliding-window')
      .set(auth)
      .send({ mode: 'shadow' })
      .expect(200);
    const shadowedAt = performance.now();
    expect((await shadowOnB) - shadowedAt).toBeLessThan(100);
    await request(b.getHttpServer())
      .get('/api/sliding-window')
      .set('X-Forwarded-For', ip)
      .expect(200);
    await within(
      2_000,
      async () => (await policyOn(a, 'demo.sliding-window')).stats.shadowRejected === 1,
    );
  });

  describe('bad input answers 400 naming the field, and nothing is written', () => {
    const bad: [string, unknown, string][] = [
      ['negative limit', { limit: -1 }, 'limit'],
      ['zero limit', { limit: 0 }, 'limit'],
      ['fractional limit', { limit: 1.5 }, 'limit'],
      ['non-numeric limit', { limit: 'ten' }, 'limit'],
      ['too large limit', { limit: 1_000_000_001 }, 'limit'],
      ['unparsable window', { window: '10 parsecs' }, 'window'],
      ['out-of-range window', { window: '400d' }, 'window'],
      ['zero windowMs', { windowMs: 0 }, 'windowMs'],
      ['unknown algo', { algo: 'token_bucket' }, 'algo'],
      ['unknown mode', { mode: 'observe' }, 'mode'],
      ['non-boolean enabled', { enabled: 'yes' }, 'enabled'],
      ['bad burst', { burst: 0 }, 'burst'],
      ['unknown field', { limit: 3, colour: 'red' }, 'colour'],
      // Named after Object.prototype members: the whitelist once let them through (fuzz-found).
      ['a field named constructor', JSON.parse('{"limit":3,"constructor":1}'), 'constructor'],
      ['a field named __proto__', JSON.parse('{"__proto__":0,"limit":3}'), '__proto__'],
      // What Fastify's JSON parser refuses itself, by default with its own message.
      [
        'a constructor holding a prototype',
        JSON.parse('{"limit":3,"constructor":{"prototype":{"admin":true}}}'),
        'constructor',
      ],
      ['a field named prototype', { prototype: 0, limit: 3 }, 'prototype'],
    ];
    it.each(bad)('%s', async (_label, body, field) => {
      const before = await policyOn(a, 'demo.gcra');
      const res = await request(a.getHttpServer())
        .patch('/admin/policies/demo.gcra')
        .set(auth)
        .send(body as object)
        .expect(400);
      expect(JSON.stringify(res.body.message)).toContain(field);
      expect(await policyOn(a, 'demo.gcra')).toEqual(before);
      expect(await policyOn(b, 'demo.gcra')).toMatchObject({ limit: before.limit, override: null });
      expect(await raw.exists(`${prefix}:policy:demo.gcra`)).toBe(0);
    });

    // Each field is valid alone; the result is not (the sliding log's largest limit is 10,000).
    it.each([
      ['demo.sliding-window', { limit: 20_000 }],
      ['demo.fixed-window', { algo: 'sliding-window', limit: 10_001 }],
    ])('%s %j: 400 pointing to sliding-window-counter', async (name, body) => {
      const res = await request(a.getHttpServer())
        .patch(`/admin/policies/${name}`)
        .set(auth)
        .send(body)
        .expect(400);
      expect(JSON.stringify(res.body.message)).toContain('sliding-window-counter');
      expect(await raw.exists(`${prefix}:policy:${name}`)).toBe(0);
      expect((await policyOn(b, name)).override).toBeNull();
    });

    it('checked against the override as stored, not as this instance last read it', async () => {
      // Written by hand a moment ago: neither instance has refreshed yet (every 5 s).
      await raw.hset(`${prefix}:policy:demo.fixed-window`, 'algo', 'sliding-window');
      await request(a.getHttpServer())
        .patch('/admin/policies/demo.fixed-window')
        .set(auth)
        .send({ limit: 50_000 })
        .expect(400);
      expect(await raw.hgetall(`${prefix}:policy:demo.fixed-window`)).toEqual({
        algo: 'sliding-window',
      });
    });

    it('a limit the sliding log cannot take, then a switch to it: the switch is refused', async () => {
      await request(a.getHttpServer())
        .patch('/admin/policies/demo.fixed-window')
        .set(auth)
        .send({ limit: 50_000 })
        .expect(200);
      const before = await raw.hgetall(`${prefix}:policy:demo.fixed-window`);
      await request(a.getHttpServer())
        .patch('/admin/policies/demo.fixed-window')
        .set(auth)
        .send({ algo: 'sliding-window' })
        .expect(400);
      expect(await raw.hgetall(`${prefix}:policy:demo.fixed-window`)).toEqual(before);
      expect(await policyOn(a, 'demo.fixed-window')).toMatchObject({ algo: 'fixed-window' });
    });

    it('a policy key of another type: PATCH is a 409 naming it, views and stats still answer', async () => {
      await raw.set(`${prefix}:policy:demo.gcra`, 'x');
      await raw.set(`${prefix}:stats:demo.gcra`, 'y');
      try {
        const res = await request(a.getHttpServer())
          .patch('/admin/policies/demo.gcra')
          .set(auth)
          .send({ limit: 3 })
          .expect(409);
        expect(res.body.message).toContain(`${prefix}:policy:demo.gcra`);
        expect(await raw.get(`${prefix}:policy:demo.gcra`)).toBe('x');
        const list = await request(a.getHttpServer()).get('/admin/policies').set(auth).expect(200);
        const gcra = list.body.find((p: { name: string }) => p.name === 'demo.gcra');
        expect(gcra.stats).toEqual({ allowed: 0, rejected: 0, shadowRejected: 0 });
        await raw.del(`${prefix}:stats:demo.gcra`);
        await raw.hset(`${prefix}:stats:demo.gcra`, { allowed: 'abc', rejected: '1.5' });
        const view = await request(a.getHttpServer()).get('/admin/policies/demo.gcra').set(auth);
        expect(view.body.stats).toEqual({ allowed: 0, rejected: 0, shadowRejected: 0 });
      } finally {
        await raw.del(`${prefix}:policy:demo.gcra`, `${prefix}:stats:demo.gcra`);
      }
    });

    it('malformed JSON', async () => {
      await request(a.getHttpServer())
        .patch('/admin/policies/demo.gcra')
        .set(auth)
        .set('Content-Type', 'application/json')
        .send('{"limit": 3,')
        .expect(400);
      expect(await raw.exists(`${prefix}:policy:demo.gcra`)).toBe(0);
      expect((await policyOn(a, 'demo.gcra')).override).toBeNull();
    });

    it('unknown policy answers 404 and writes nothing', async () => {
      await request(a.getHttpServer())
        .patch('/admin/policies/demo.nope')
        .set(auth)
        .send({ limit: 3 })
        .expect(404);
      expect(await raw.exists(`${prefix}:policy:demo.nope`)).toBe(0);
    });
  });
});
