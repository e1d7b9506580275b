/**
 * TWO instances of a fixture app sharing one Redis, with the admin API, fresh for each test
 * (a key prefix of their own): what an operator changes on one, the other must enforce.
 */
import type { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import request from 'supertest';
import { PolicyRegistry, type RateLimitPolicy } from '@app/rate-limit';
import { type PolicyView } from '@app/rate-limit/admin';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { windowWithoutBoundary } from '../../support/window-headroom';
import { ADMIN_AUTH, createFixtureApp, PATIENT_TIMEOUT_MS } from '../fixtures/fixture-app';
import { limitedController } from '../fixtures/limited-controller';

/** Fixed windows and buckets that do not end or refill during a test, wherever the clock is. */
export const WINDOW_MS = windowWithoutBoundary();

/**
 * Five per client on each route; the sliding log's 5 minutes start at a client's first request
 * (no boundary of the clock), and nothing these tests send leaves it while they run: the keys
 * listing's flood of 1,000 requests took 10.8 s on a busy CI host, longer than a 10 s window.
 */
const ROUTES = limitedController('api', {
  'sliding-window': [{ name: 'fx.sliding-window', algo: 'sliding-window', limit: 5, window: '5m' }],
  'fixed-window': [{ name: 'fx.fixed-window', algo: 'fixed-window', limit: 5, window: WINDOW_MS }],
  gcra: [{ name: 'fx.gcra', algo: 'gcra', limit: 5, window: WINDOW_MS }],
  keyed: [
    { name: 'fx.api-key', algo: 'token-bucket', limit: 5, window: WINDOW_MS, key: 'api-key' },
  ],
});

export interface AdminPair {
  a(): INestApplication;
  b(): INestApplication;
  /** The current test's key prefix. */
  prefix(): string;
  /** A client of the test Redis, for what operators write by hand. */
  raw(): Redis;
  /** The admin API's view of a policy on one instance. */
  policyOn(app: INestApplication, name: string): Promise<PolicyView>;
  /**
   * When `app` applies a change of policy `name` that `applied` accepts (its registry's own
   * event, so the time is the instance's, not that of the next poll of its admin API: under a
   * loaded host each poll is itself an HTTP round trip of tens of ms). Call before the change.
   */
  appliedOn(
    app: INestApplication,
    name: string,
    applied: (policy: RateLimitPolicy) => boolean,
  ): Promise<number>;
}

export function useAdminPair(): AdminPair {
  let redis: TestRedis;
  let raw: Redis;
  let a: INestApplication;
  let b: INestApplication;
  let prefix: string;

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
    const fixture = {
      limiter: {
        redis: redis.url,
        keyPrefix: prefix,
        // Bursts of 100 concurrent requests: no test here is about timeouts (see redis-down).
        commandTimeoutMs: PATIENT_TIMEOUT_MS,
        trustProxy: 'loopback' as const,
      },
      controllers: [ROUTES],
      admin: true,
    };
    [a, b] = await Promise.all([createFixtureApp(fixture), createFixtureApp(fixture)]);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  return {
    a: () => a,
    b: () => b,
    prefix: () => prefix,
    raw: () => raw,
    policyOn: async (app, name) =>
      (await request(app.getHttpServer()).get(`/admin/policies/${name}`).set(ADMIN_AUTH))
        .body as PolicyView,
    appliedOn: (app, name, applied) =>
      new Promise((resolve) =>
        app.get(PolicyRegistry, { strict: false }).onChange((changed, policy) => {
          if (changed === name && applied(policy)) resolve(performance.now());
        }),
      ),
  };
}
