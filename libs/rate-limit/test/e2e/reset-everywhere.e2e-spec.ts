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
import { untilReady } from '../support/redis-readiness';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { within } from '../support/within';
import { windowWithoutBoundary } from '../support/window-headroom';
import { ADMIN_AUTH, createFixtureApp, type FixtureApp } from './fixtures/fixture-app';
import { limitedController } from './fixtures/limited-controller';

const POLICY = 'fx.fixed-window';
const CLIENT = '198.51.100.77';
/** 5 per client in a fixed window that does not end during the test, wherever the clock is. */
const ROUTE = limitedController('api', {
  'fixed-window': [
    { name: POLICY, algo: 'fixed-window', limit: 5, window: windowWithoutBoundary() },
  ],
});

describe('admin reset on one instance, fallback state on another', () => {
  let redis: TestRedis;
  let a: INestApplication;
  let b: INestApplication;

  beforeAll(async () => {
    redis = await startTestRedis();
    const fixture: FixtureApp = {
      limiter: { redis: redis.url, keyPrefix: uniquePrefix('reset'), trustProxy: 'loopback' },
      controllers: [ROUTE],
      admin: true,
    };
    a = await createFixtureApp(fixture);
    b = await createFixtureApp(fixture);
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
      .set(ADMIN_AUTH);
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
