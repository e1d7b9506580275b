/**
 * SPEC section 13: the demo on Express and on Fastify, side by side on one Redis, answers the
 * same requests alike (status, rate-limit headers, Retry-After, content type, body), takes the
 * same clients for the same identities, and its admin API answers alike. What differs by
 * framework only (parser error wording, Keep-Alive, X-Powered-By, ETag) is not compared.
 */
import type { INestApplication } from '@nestjs/common';
import request, { type Response } from 'supertest';
import type { HttpPlatform } from '../apps/demo/src/config/demo-config';
import {
  ownsTestRedis,
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { demoWindowsWithoutBoundary } from './support/demo-windows';
import { createDemoApp } from './support/create-demo-app';
import { untilDisconnected, untilReady } from '../libs/rate-limit/test/support/redis-readiness';

const ADMIN_TOKEN = 'parity-admin-token-0123456789abcdefghij';
const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
/**
 * The policies a transcript spends, given a window without a boundary within the hour first: in
 * their own 10 s windows a transcript could straddle a boundary and see a fresh window.
 */
const SPENT = ['fixed-window', 'stacked-client', 'stacked-route', 'api-key', 'plan', 'gcra'];

/** A number of seconds (reset, Retry-After), which two apps may round a second apart. */
const seconds = (value: unknown): unknown =>
  value === undefined ? undefined : /^\d+$/.test(String(value)) ? 'N' : `not seconds: ${value}`;

/** What a client of the rate limiter sees of one response. */
function seen(res: Response): Record<string, unknown> {
  const h = res.headers;
  const body = res.body as Record<string, unknown> | undefined;
  return {
    status: res.status,
    type: h['content-type'],
    limit: [h['ratelimit-limit'], h['ratelimit-remaining'], seconds(h['ratelimit-reset'])],
    retryAfter: seconds(h['retry-after']),
    wwwAuthenticate: h['www-authenticate'],
    body:
      body && typeof body.retryAfter === 'number'
        ? { ...body, retryAfter: 'N' }
        : (body ?? res.text),
  };
}

/** The same requests on one app, in order; the transcript of what came back. */
async function transcript(app: INestApplication): Promise<Record<string, unknown>[]> {
  const http = () => request(app.getHttpServer());
  const out: Record<string, unknown>[] = [];
  const record = async (label: string, res: Promise<Response>) =>
    out.push({ label, ...seen(await res) });
  const from = (ip: string) => ({ 'X-Forwarded-For': ip });

  for (let i = 0; i < 6; i++) {
    await record(`fixed-window #${i}`, http().get('/api/fixed-window').set(from('203.0.113.7')));
  }
  // Clients as the limiter identifies them: an IPv6 /64, IPv4-mapped IPv6, forged text.
  for (const ip of ['2001:db8:1:2::10', '2001:db8:1:2::11', '::ffff:198.51.100.9', 'junk']) {
    await record(`fixed-window from ${ip}`, http().get('/api/fixed-window').set(from(ip)));
  }
  for (let i = 0; i < 4; i++) {
    await record(`stacked #${i}`, http().get('/api/stacked').set(from('203.0.113.8')));
  }
  await record('keyed', http().get('/api/keyed').set('X-Api-Key', 'sk_parity_0123456789'));
  await record('plan pro', http().get('/api/plan').set('X-Plan', 'pro').set(from('203.0.113.9')));
  await record('HEAD gcra', http().head('/api/gcra').set(from('203.0.113.10')));
  await record('gcra/', http().get('/api/gcra/').set(from('203.0.113.10')));
  await record('API/gcra', http().get('/API/gcra').set(from('203.0.113.10')));
  await record('unlimited', http().get('/api/unlimited'));
  await record('no route', http().get('/api/none'));

  const keys = await http().get('/admin/policies/demo.fixed-window/keys').set(AUTH);
  const items = (keys.body as { items: { identity: string; used: number }[] }).items;
  out.push({
    label: 'identities',
    status: keys.status,
    identities: items.map(({ identity, used }) => `${identity} used ${used}`).sort(),
  });
  const long = encodeURIComponent(`key:${'k'.repeat(300)}`);
  await record(
    'reset a long identity',
    http().delete(`/admin/policies/demo.gcra/keys/${long}`).set(AUTH),
  );
  await record('no token', http().get('/admin/policies'));
  await record('unknown policy', http().get('/admin/policies/none').set(AUTH));
  await record(
    'bad field',
    http().patch('/admin/policies/demo.gcra').set(AUTH).send({ limit: -1, x: 1 }),
  );
  await record('no body', http().patch('/admin/policies/demo.gcra').set(AUTH));
  await record(
    'bad tier',
    http().patch('/admin/policies/demo.plan/tiers/none').set(AUTH).send({ limit: 2 }),
  );
  const huge = { limit: 3, pad: 'x'.repeat(200 * 1024) };
  out.push({
    label: 'a 200 KB body',
    status: (await http().patch('/admin/policies/demo.gcra').set(AUTH).send(huge)).status,
  });
  for (let i = 0; i < 3; i++) {
    await record(
      `wrong token #${i}`,
      http().get('/admin/policies').set('Authorization', 'Bearer nope'),
    );
  }
  return out;
}

describe('Express and Fastify answer alike', () => {
  let redis: TestRedis;
  const apps = new Map<HttpPlatform, INestApplication>();

  beforeAll(async () => {
    redis = await startTestRedis();
    for (const platform of PLATFORMS) {
      const app = await createDemoApp(
        {
          REDIS_URL: redis.url,
          RATE_LIMIT_KEY_PREFIX: uniquePrefix(`parity-${platform}`),
          ADMIN_TOKEN,
          ADMIN_FAILED_TOKEN_LIMIT: '2',
          TRUST_PROXY: 'loopback',
          RATE_LIMIT_ON_REDIS_ERROR: 'closed',
        },
        { platform },
      );
      apps.set(platform, app);
      await untilReady(app);
      await demoWindowsWithoutBoundary(
        [app],
        ADMIN_TOKEN,
        SPENT.map((name) => `demo.${name}`),
      );
    }
  });
  afterAll(async () => {
    await Promise.all([...apps.values()].map((app) => app.close()));
    await redis?.close();
  });

  it('the same requests get the same answers, identities and admin answers', async () => {
    const express = await transcript(apps.get('express')!);
    const fastify = await transcript(apps.get('fastify')!);
    expect(fastify).toEqual(express);
    // The transcript means something: limits were reached and the admin API was reached.
    const statuses = express.map((entry) => entry.status);
    expect(statuses).toEqual(expect.arrayContaining([200, 204, 400, 401, 404, 413, 429]));
  }, 60_000);

  (ownsTestRedis() ? it : it.skip)('Redis down, fail-closed: the same 503', async () => {
    await redis.stop();
    try {
      const answers = [];
      for (const platform of PLATFORMS) {
        const app = apps.get(platform)!;
        await untilDisconnected(app);
        answers.push(seen(await request(app.getHttpServer()).get('/api/token-bucket')));
      }
      expect(answers[0]).toMatchObject({ status: 503, body: { statusCode: 503 } });
      expect(answers[1]).toEqual(answers[0]);
    } finally {
      await redis.restart();
    }
  });
});
