/**
 * Two instances of a fixture app on one test Redis, for the Redis failure tests (SPEC section 8):
 * its routes (one per algorithm, stacked policies, an API-key identity, tiers, an exempt route),
 * and what a fault test reads of them (latencies, failure counts, state keys).
 */
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import request, { type Response } from 'supertest';
import { PolicyRegistry, RATE_LIMIT_ALGORITHMS, type OnRedisError } from '@app/rate-limit';
import type { RateLimitConfig } from '@app/rate-limit/config/resolve-module-options';
import { RATE_LIMIT_CONFIG } from '@app/rate-limit/rate-limit.constants';
import { InstanceHeartbeat } from '@app/rate-limit/runtime/instance-heartbeat.service';
import { untilReady } from '../../support/redis-readiness';
import { uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { timeWithStalls } from '../../support/stall-meter';
import { windowWithoutBoundary } from '../../support/window-headroom';
import { createFixtureApp } from '../fixtures/fixture-app';
import { limitedController, type FixtureRoute } from '../fixtures/limited-controller';
import { limiterMetrics } from '../fixtures/limiter-metrics';
import { planPolicy } from '../fixtures/plan-policy';

export const COMMAND_TIMEOUT_MS = 100; // the library's default commandTimeoutMs
/**
 * Each request during a fault: the command timeout (the promise), plus 150 ms for the process's
 * own work (parsing, the fallback, the response); time the host descheduled it is not counted.
 */
export const LATENCY_BUDGET_MS = COMMAND_TIMEOUT_MS + 150;
/** Consecutive failures after which the store's circuit breaker opens (RedisStore default). */
export const BREAKER_THRESHOLD = 3;

/** No window ends during a test (a new one would admit a client again), wherever the clock is. */
const WINDOW = windowWithoutBoundary();
const ROUTES: Record<string, FixtureRoute> = {
  ...Object.fromEntries(
    RATE_LIMIT_ALGORITHMS.map((algo) => [
      algo,
      [{ name: `fx.${algo}`, algo, limit: 5, window: WINDOW }],
    ]),
  ),
  stacked: [
    { name: 'fx.stacked-client', algo: 'sliding-window', limit: 3, window: WINDOW },
    { name: 'fx.stacked-route', algo: 'fixed-window', limit: 20, window: WINDOW, key: 'route' },
  ],
  keyed: [{ name: 'fx.api-key', algo: 'token-bucket', limit: 5, window: WINDOW, key: 'api-key' }],
  plan: [planPolicy('fx.plan', WINDOW)],
  unlimited: 'skip',
};
const CONTROLLER = limitedController('api', ROUTES);
/** Every limited route: each algorithm, stacked policies, a custom key, tiers. */
export const LIMITED_ROUTES = Object.keys(ROUTES)
  .filter((route) => route !== 'unlimited')
  .map((route) => `/api/${route}`);

/**
 * Two instances on `redis` under a fresh key prefix, listening (supertest would otherwise open
 * and close a server per request, inside the timed latency), each deciding through Redis.
 */
export async function twoInstances(
  redis: TestRedis,
  label: string,
  onRedisError: OnRedisError,
): Promise<[INestApplication, INestApplication]> {
  const fixture = {
    limiter: {
      redis: redis.url,
      keyPrefix: uniquePrefix(label),
      onRedisError,
      trustProxy: 'loopback' as const,
    },
    controllers: [CONTROLLER],
  };
  const a = await createFixtureApp(fixture);
  const b = await createFixtureApp(fixture);
  await a.listen(0, '127.0.0.1');
  await b.listen(0, '127.0.0.1');
  await Promise.all([untilReady(a), untilReady(b)]);
  return [a, b];
}

/**
 * One heartbeat each, in turn, twice: both know there are two of them before a fault (a Redis
 * restarted empty forgets the instances until their next heartbeats).
 */
export async function knowEachOther(a: INestApplication, b: INestApplication): Promise<void> {
  for (let round = 0; round < 2; round++) {
    for (const app of [a, b]) await app.get(InstanceHeartbeat).beat();
  }
  for (const app of [a, b]) expect(app.get(InstanceHeartbeat).standing.instances).toBe(2);
}

export interface Timed {
  res: Response;
  ms: number;
  /** `ms` less the time the host kept this process from running (support/stall-meter). */
  waitedMs: number;
}

export async function timedGet(app: INestApplication, path: string, ip: string): Promise<Timed> {
  const {
    value: res,
    ms,
    waitedMs,
  } = await timeWithStalls(
    async () => await request(app.getHttpServer()).get(path).set('X-Forwarded-For', ip),
  );
  return { res, ms, waitedMs };
}

/** Every request of a fault phase, with its latency, checked against the budget at the end. */
export class FaultLog {
  readonly requests: {
    app: INestApplication;
    path: string;
    status: number;
    ms: number;
    waitedMs: number;
  }[] = [];

  async get(app: INestApplication, path: string, ip: string): Promise<Response> {
    const { res, ms, waitedMs } = await timedGet(app, path, ip);
    this.requests.push({ app, path, status: res.status, ms, waitedMs });
    return res;
  }

  /** One instance's rate-limited requests, in order: wall time and the part the host allowed. */
  limitedOn(app: INestApplication): { ms: number; waitedMs: number }[] {
    return this.requests.filter((r) => r.app === app && r.path !== '/api/unlimited');
  }

  get maxMs(): number {
    return Math.max(...this.requests.map((r) => r.ms));
  }

  /**
   * The requests that waited past the budget. Judged on what the product waited, not on wall
   * time: with 3 Jest workers, redis-servers and a browser on 2 cores, a CI host once kept this
   * process off the CPU for most of a second during one request (964 ms wall; alone or with
   * both cores busy, such a request takes 100-190 ms wall and at most 111 ms waited).
   */
  slow(): string[] {
    return this.requests
      .filter((r) => r.waitedMs >= LATENCY_BUDGET_MS)
      .map(
        (r) =>
          `${r.path} ${r.status} waited ${r.waitedMs.toFixed(1)} ms ` +
          `(${r.ms.toFixed(1)} ms wall)`,
      );
  }
}

/** The instance's decisions Redis could not make, by failure kind (its metrics). */
export async function storeFailures(
  app: INestApplication,
): Promise<{ timeout: number; unavailable: number }> {
  const metrics = await limiterMetrics(app);
  const count = (failure: string) =>
    metrics.get(`rate_limit_redis_errors_total{failure="${failure}"}`) ?? 0;
  return { timeout: count('timeout'), unavailable: count('unavailable') };
}

export function stateKey(app: INestApplication, policyName: string, identity: string): string {
  const config = app.get<RateLimitConfig>(RATE_LIMIT_CONFIG);
  const policy = app.get(PolicyRegistry).get(policyName)!;
  return config.keys.stateKey(config.keys.identityTag(identity), policy);
}

/** Reads keys straight from the test Redis (a short-lived client of its own). */
export async function redisKeyExists(redis: TestRedis, key: string): Promise<boolean> {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
  try {
    return (await client.exists(key)) === 1;
  } finally {
    client.disconnect();
  }
}
