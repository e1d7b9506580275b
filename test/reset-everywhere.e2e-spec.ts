/**
 * A reset through the admin API resets every place a client's state lives: Redis, and on every
 * instance the memory fallback (its own decisions and what Redis last said was left) and the
 * remembered rejections. Otherwise the client keeps getting 429s from an instance that falls
 * back later, although an operator unblocked it.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { RateLimitConfig } from '@app/rate-limit/config/resolve-module-options';
import { RATE_LIMIT_CONFIG } from '@app/rate-limit/rate-limit.constants';
import { PolicyRegistry } from '@app/rate-limit';
import { InstanceHeartbeat } from '@app/rate-limit/runtime/instance-heartbeat.service';
import { FallbackStore } from '@app/rate-limit/engine/fallback-store';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { within } from '../libs/rate-limit/test/support/within';
import { createDemoApp } from './utils/create-demo-app';
import { untilReady } from './utils/redis-readiness';
import { ensureWindowHeadroom } from '../libs/rate-limit/test/support/window-headroom';

const TOKEN = 'reset-everywhere-token-0123456789abcdef';
const POLICY = 'demo.fixed-window';
const CLIENT = '198.51.100.77';

describe('admin reset on one instance, fallback state on another', () => {
  let redis: TestRedis;
  let a: INestApplication;
  let b: INestApplication;

  beforeAll(async () => {
    redis = await startTestRedis();
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix('reset'),
      TRUST_PROXY: 'loopback',
      ADMIN_TOKEN: TOKEN,
    };
    a = await createDemoApp(env);
    b = await createDemoApp(env);
    await Promise.all([untilReady(a), untilReady(b)]);
    for (const app of [a, b, a]) await app.get(InstanceHeartbeat).beat();
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.close();
  });

  const hit = (app: INestApplication) =>
    request(app.getHttpServer()).get('/api/fixed-window').set('X-Forwarded-For', CLIENT);

  it('B admits the client again from its fallback after A reset it', async () => {
    // Demo routes have 10 s fixed windows: a burst must not straddle one's end (a new window
    // admits the client again; tests that did not wait failed so under load).
    await ensureWindowHeadroom(10_000, 5_000);
    const config = b.get<RateLimitConfig>(RATE_LIMIT_CONFIG);
    const policy = b.get(PolicyRegistry).get(POLICY)!;
    const key = config.keys.stateKey(config.keys.identityTag(`ip:${CLIENT}`), policy);
    // The client uses up its 5 on B; B's fallback notes that Redis said nothing is left.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await hit(b)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(b.get(FallbackStore).holds(key)).toBe(true);

    const reset = await request(a.getHttpServer())
      .delete(`/admin/policies/${POLICY}/keys/${encodeURIComponent(`ip:${CLIENT}`)}`)
      .set('Authorization', `Bearer ${TOKEN}`);
    expect(reset.status).toBe(204);
    // The reset reaches B over Pub/Sub.
    await within(2_000, () => !b.get(FallbackStore).holds(key));

    // Redis freezes: B decides alone, with its share of a fresh limit of 5 (3 for the first of
    // the two instances, 2 for the second), this request the first of it.
    const share = b.get(InstanceHeartbeat).standing.rank === 0 ? 3 : 2;
    await redis.pause();
    try {
      const response = await hit(b);
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-remaining']).toBe(String(share - 1));
    } finally {
      await redis.resume();
    }
  });
});
