/**
 * Redis failure and recovery, end to end (SPEC section 8), for each RATE_LIMIT_ON_REDIS_ERROR mode.
 *
 * One owned redis-server for the file. For each mode, two demo instances (A, B) share it under a
 * fresh key prefix, with TRUST_PROXY=loopback so each phase uses a fresh client IP (X-Forwarded-For).
 * Two faults per mode:
 *  - stop():  the server exits; clients see the connection close and reconnect in the background
 *             (commands fail at once: no offline queue). Recovered by restart() on the same port.
 *  - pause(): SIGSTOP; connections stay open, nothing answers, every command runs into the
 *             command timeout (100 ms default). Recovered by resume().
 * Every request during a fault must finish within 100 ms + 150 ms. After recovery, requests
 * alternating across A and B must again share one Redis-held budget: 5 x 200 then 429.
 */
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import request, { type Response } from 'supertest';
import { PolicyRegistry } from '@app/rate-limit';
import { InstanceHeartbeat } from '@app/rate-limit/runtime/instance-heartbeat.service';
import { FallbackStore } from '@app/rate-limit/engine/fallback-store';
import type { RateLimitConfig } from '@app/rate-limit/config/resolve-module-options';
import { RATE_LIMIT_CONFIG } from '@app/rate-limit/rate-limit.constants';
import {
  ownsTestRedis,
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { createDemoApp } from './utils/create-demo-app';
import { untilDisconnected, untilReady, untilReconnectDelay } from './utils/redis-readiness';
import { UnhandledRejections } from './utils/unhandled-rejections';
import { ensureWindowHeadroom } from '../libs/rate-limit/test/support/window-headroom';
import { LIMITED_ROUTES } from './support/demo-routes';
import { parseMetrics } from './support/demo-process';

type Mode = 'memory' | 'open' | 'closed';

const COMMAND_TIMEOUT_MS = 100; // the demo's default RATE_LIMIT_TIMEOUT_MS
const LATENCY_BUDGET_MS = COMMAND_TIMEOUT_MS + 150;
const TEN_SECONDS = 10_000;
const BURST_HEADROOM_MS = 2_000;
/** The cap of the library's reconnect backoff (LIMITER_CLIENT_DEFAULTS.retryStrategy). */
const MAX_RECONNECT_DELAY_MS = 1_000;

// The file needs a Redis it can stop; with REDIS_URL set (not owned) it is skipped.
const describeOwned = ownsTestRedis() ? describe : describe.skip;

let redis: TestRedis;
let redisState: 'up' | 'stopped' | 'paused' = 'up';
const rejections = new UnhandledRejections();
const figures: string[] = [];

let ipCounter = 0;
/** A client IP no earlier phase used, so every phase starts from a clean bucket. */
const freshIp = (): string => `203.0.113.${++ipCounter}`;

/** Two demo instances on the shared Redis, listening, each deciding through Redis. */
async function twoInstances(
  label: string,
  mode: Mode,
): Promise<[INestApplication, INestApplication]> {
  const overrides = {
    REDIS_URL: redis.url,
    RATE_LIMIT_KEY_PREFIX: uniquePrefix(label),
    RATE_LIMIT_ON_REDIS_ERROR: mode,
    TRUST_PROXY: 'loopback',
  };
  const a = await createDemoApp(overrides);
  const b = await createDemoApp(overrides);
  await a.listen(0, '127.0.0.1');
  await b.listen(0, '127.0.0.1');
  await Promise.all([untilReady(a), untilReady(b)]);
  return [a, b];
}

/**
 * One heartbeat each, in turn, twice: both know there are two of them before a fault (a Redis
 * restarted empty forgets the instances until their next heartbeats).
 */
async function knowEachOther(a: INestApplication, b: INestApplication): Promise<void> {
  for (let round = 0; round < 2; round++) {
    for (const app of [a, b]) await app.get(InstanceHeartbeat).beat();
  }
  for (const app of [a, b]) expect(app.get(InstanceHeartbeat).standing.instances).toBe(2);
}

interface Timed {
  res: Response;
  ms: number;
}

async function timedGet(app: INestApplication, path: string, ip: string): Promise<Timed> {
  const started = performance.now();
  const res = await request(app.getHttpServer()).get(path).set('X-Forwarded-For', ip);
  return { res, ms: performance.now() - started };
}

/** Consecutive failures after which the store's circuit breaker opens (RedisStore default). */
const BREAKER_THRESHOLD = 3;

/** Every request of a fault phase, with its latency, checked against the budget at the end. */
/** The instance's decisions Redis could not make, by failure kind (its `/metrics`). */
async function storeFailures(
  app: INestApplication,
): Promise<{ timeout: number; unavailable: number }> {
  const metrics = parseMetrics(
    (await request(app.getHttpServer()).get('/metrics').expect(200)).text,
  );
  const count = (failure: string) =>
    metrics.get(`rate_limit_redis_errors_total{failure="${failure}"}`) ?? 0;
  return { timeout: count('timeout'), unavailable: count('unavailable') };
}

class FaultLog {
  readonly requests: { app: INestApplication; path: string; status: number; ms: number }[] = [];

  async get(app: INestApplication, path: string, ip: string): Promise<Response> {
    const { res, ms } = await timedGet(app, path, ip);
    this.requests.push({ app, path, status: res.status, ms });
    return res;
  }

  /** Latencies of one instance's rate-limited requests, in order. */
  limitedOn(app: INestApplication): number[] {
    return this.requests
      .filter((r) => r.app === app && r.path !== '/api/unlimited')
      .map((r) => r.ms);
  }

  get maxMs(): number {
    return Math.max(...this.requests.map((r) => r.ms));
  }

  slow(): string[] {
    return this.requests
      .filter((r) => r.ms >= LATENCY_BUDGET_MS)
      .map((r) => `${r.path} ${r.status} ${r.ms.toFixed(1)} ms`);
  }
}

function stateKey(app: INestApplication, policyName: string, identity: string): string {
  const config = app.get<RateLimitConfig>(RATE_LIMIT_CONFIG);
  const policy = app.get(PolicyRegistry).get(policyName)!;
  return config.keys.stateKey(config.keys.identityTag(identity), policy);
}

/** Reads keys straight from the test Redis (a short-lived client of its own). */
async function redisKeyExists(key: string): Promise<boolean> {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
  try {
    return (await client.exists(key)) === 1;
  } finally {
    client.disconnect();
  }
}

/**
 * What each mode must do while Redis cannot decide, the same whether Redis fails calls at once
 * (stopped: nothing was sent) or lets them time out (paused: their outcome unknown); returns the
 * client IP it used.
 */
async function exerciseFault(
  mode: Mode,
  a: INestApplication,
  b: INestApplication,
  log: FaultLog,
): Promise<string> {
  switch (mode) {
    case 'memory': {
      // Each instance admits its share of the limit of 5: 3 for the first of the two live
      // instances (in id order), 2 for the second, so together they admit the limit once. Also
      // when the first call timed out (Redis paused): whatever Redis does with it later, the
      // client's answer to it is the fallback's, counted in A's share.
      const ip = freshIp();
      await ensureWindowHeadroom(TEN_SECONDS, BURST_HEADROOM_MS);
      const [shareA, shareB] = [a, b].map((app) =>
        app.get(InstanceHeartbeat).standing.rank === 0 ? 3 : 2,
      );
      expect(shareA + shareB).toBe(5);
      const onA: Response[] = [];
      for (let i = 0; i < 6; i++) onA.push(await log.get(a, '/api/fixed-window', ip));
      expect(onA.map((r) => r.status)).toEqual([
        ...Array<number>(shareA).fill(200),
        ...Array<number>(6 - shareA).fill(429),
      ]);
      expect(onA.slice(0, shareA).map((r) => r.headers['ratelimit-remaining'])).toEqual(
        Array.from({ length: shareA }, (_, i) => String(shareA - 1 - i)),
      );
      expect(onA[5].body).toMatchObject({ statusCode: 429, policy: 'demo.fixed-window' });
      // Decided by A's own in-memory store: the state is there, and B (its own memory) has its
      // own share for the same client.
      const key = stateKey(a, 'demo.fixed-window', `ip:${ip}`);
      expect(a.get(FallbackStore).memory.keyspace.get(key)).toBeDefined();
      const onB: Response[] = [];
      for (let i = 0; i < 4; i++) onB.push(await log.get(b, '/api/fixed-window', ip));
      expect(onB.map((r) => r.status)).toEqual([
        ...Array<number>(shareB).fill(200),
        ...Array<number>(4 - shareB).fill(429),
      ]);
      expect(onB[0].headers['ratelimit-remaining']).toBe(String(shareB - 1));
      return ip;
    }
    case 'open': {
      const ip = freshIp();
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++)
        statuses.push((await log.get(i % 2 === 0 ? a : b, '/api/fixed-window', ip)).status);
      for (const path of LIMITED_ROUTES) statuses.push((await log.get(a, path, ip)).status);
      statuses.push((await log.get(b, '/api/unlimited', ip)).status);
      expect(statuses).toEqual(new Array(8 + LIMITED_ROUTES.length + 1).fill(200));
      return ip;
    }
    case 'closed': {
      const ip = freshIp();
      const limited: number[] = [];
      for (const path of LIMITED_ROUTES) {
        for (const app of [a, b]) {
          const res = await log.get(app, path, ip);
          limited.push(res.status);
          if (res.status === 503) expect(res.body).toMatchObject({ statusCode: 503 });
        }
      }
      expect(limited).toEqual(new Array(LIMITED_ROUTES.length * 2).fill(503));
      const unlimited = [
        await log.get(a, '/api/unlimited', ip),
        await log.get(b, '/api/unlimited', ip),
      ];
      expect(unlimited.map((r) => r.status)).toEqual([200, 200]);
      return ip;
    }
  }
}

/**
 * Redis decides again: one fresh client alternating across A and B gets one shared budget
 * (per-instance memory would admit 8, fail-open 8, fail-closed none), and the state is in Redis.
 * Resolves with the time spent waiting for window headroom, which is not recovery time.
 */
async function expectRedisDecides(a: INestApplication, b: INestApplication): Promise<number> {
  const ip = freshIp();
  const waitedMs = await ensureWindowHeadroom(TEN_SECONDS, BURST_HEADROOM_MS);
  const responses: Response[] = [];
  for (let i = 0; i < 8; i++)
    responses.push((await timedGet(i % 2 === 0 ? a : b, '/api/fixed-window', ip)).res);
  expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  expect(responses.slice(0, 5).map((r) => r.headers['ratelimit-remaining'])).toEqual([
    '4',
    '3',
    '2',
    '1',
    '0',
  ]);
  expect(await redisKeyExists(stateKey(a, 'demo.fixed-window', `ip:${ip}`))).toBe(true);
  return waitedMs;
}

describeOwned('Redis down or slow (RATE_LIMIT_ON_REDIS_ERROR)', () => {
  beforeAll(async () => {
    rejections.install();
    redis = await startTestRedis();
  });

  afterAll(async () => {
    rejections.uninstall();
    await redis?.close();
    console.log(
      `Redis fault figures (latency budget ${LATENCY_BUDGET_MS} ms per request):\n${figures.join('\n')}`,
    );
  });

  describe.each<Mode>(['memory', 'open', 'closed'])('onRedisError=%s', (mode) => {
    let a: INestApplication | undefined;
    let b: INestApplication | undefined;

    beforeAll(async () => {
      [a, b] = await twoInstances(`down-${mode}`, mode);
    });

    // A failed test must not leave Redis down for the next one.
    afterEach(async () => {
      if (redisState === 'paused') await redis.resume();
      if (redisState === 'stopped') await redis.restart();
      redisState = 'up';
      if (a && b) await Promise.all([untilReady(a), untilReady(b)]);
    });

    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('Redis stopped: behaves as configured within the timeout, then Redis decides again after restart()', async () => {
      await expectRedisDecides(a!, b!); // shared state before the fault
      await knowEachOther(a!, b!);

      await redis.stop();
      redisState = 'stopped';
      await Promise.all([untilDisconnected(a!), untilDisconnected(b!)]);

      const log = new FaultLog();
      const faultIp = await exerciseFault(mode, a!, b!, log);
      expect(log.slow()).toEqual([]);

      const restartAt = performance.now();
      await redis.restart();
      redisState = 'up';
      const serverUpMs = performance.now() - restartAt;
      await Promise.all([untilReady(a!), untilReady(b!)]);
      const clientsReadyMs = performance.now() - restartAt;
      const alignMs = await expectRedisDecides(a!, b!);
      const decidingMs = performance.now() - restartAt - alignMs;

      if (mode === 'memory') {
        // The fault-time decisions were never written to Redis.
        expect(await redisKeyExists(stateKey(a!, 'demo.fixed-window', `ip:${faultIp}`))).toBe(
          false,
        );
      }
      expect(rejections.describe()).toEqual([]);
      figures.push(
        `  ${mode.padEnd(6)} stop : ${log.requests.length} requests, max ${log.maxMs.toFixed(1)} ms; ` +
          `restart() ${serverUpMs.toFixed(0)} ms, both clients ready ${clientsReadyMs.toFixed(0)} ms, ` +
          `Redis-decided 5x200+429 done ${decidingMs.toFixed(0)} ms after restart began`,
      );
    });

    it('Redis paused (SIGSTOP): commands time out, behaves as configured within the timeout, recovers after resume()', async () => {
      await knowEachOther(a!, b!);
      await redis.pause();
      redisState = 'paused';

      const failuresBefore = await Promise.all([a!, b!].map(storeFailures));
      const log = new FaultLog();
      await exerciseFault(mode, a!, b!, log);
      expect(log.slow()).toEqual([]);
      // The first commands really waited for the timeout (the connection looked healthy); after
      // BREAKER_THRESHOLD timeouts the circuit opened and each instance stopped waiting at all:
      // every later decision failed at once, without a command (its failure kind says so), and
      // none waited for a timeout. (How long a request that sends nothing takes is the host's
      // load: 1.5-7 ms here, single ones up to 27 ms alone and over 50 ms in CI.)
      for (const [i, app] of [a!, b!].entries()) {
        const limited = log.limitedOn(app);
        expect(
          limited.slice(0, BREAKER_THRESHOLD).every((ms) => ms >= COMMAND_TIMEOUT_MS - 5),
        ).toBe(true);
        const failures = await storeFailures(app);
        expect({
          timeout: failures.timeout - failuresBefore[i].timeout,
          unavailable: failures.unavailable - failuresBefore[i].unavailable,
        }).toEqual({ timeout: BREAKER_THRESHOLD, unavailable: limited.length - BREAKER_THRESHOLD });
        expect(limited.slice(BREAKER_THRESHOLD).every((ms) => ms < COMMAND_TIMEOUT_MS - 5)).toBe(
          true,
        );
      }
      expect(log.requests.length).toBeGreaterThan(2 * BREAKER_THRESHOLD);

      const resumeAt = performance.now();
      await redis.resume();
      redisState = 'up';
      await Promise.all([untilReady(a!), untilReady(b!)]);
      const alignMs = await expectRedisDecides(a!, b!);
      const decidingMs = performance.now() - resumeAt - alignMs;

      expect(rejections.describe()).toEqual([]);
      figures.push(
        `  ${mode.padEnd(6)} pause: ${log.requests.length} requests, max ${log.maxMs.toFixed(1)} ms; ` +
          `Redis-decided 5x200+429 done ${decidingMs.toFixed(0)} ms after resume began`,
      );
    });
  });

  describe('long outage (onRedisError=memory)', () => {
    let a: INestApplication | undefined;
    let b: INestApplication | undefined;

    beforeAll(async () => {
      [a, b] = await twoInstances('down-long', 'memory');
    });

    afterEach(async () => {
      if (redisState === 'stopped') await redis.restart();
      redisState = 'up';
      if (a && b) await Promise.all([untilReady(a), untilReady(b)]);
    });

    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('recovers within the capped reconnect backoff once the clients retry only every second', async () => {
      await knowEachOther(a!, b!);
      await redis.stop();
      redisState = 'stopped';
      // Down until both clients' backoff has reached its cap.
      await Promise.all([
        untilReconnectDelay(a!, MAX_RECONNECT_DELAY_MS),
        untilReconnectDelay(b!, MAX_RECONNECT_DELAY_MS),
      ]);
      const log = new FaultLog();
      await exerciseFault('memory', a!, b!, log);
      expect(log.slow()).toEqual([]);

      const restartAt = performance.now();
      await redis.restart();
      redisState = 'up';
      await Promise.all([untilReady(a!), untilReady(b!)]);
      const clientsReadyMs = performance.now() - restartAt;
      const alignMs = await expectRedisDecides(a!, b!);
      const decidingMs = performance.now() - restartAt - alignMs;

      // At most one full backoff interval, plus connecting and the ready check.
      expect(clientsReadyMs).toBeLessThan(MAX_RECONNECT_DELAY_MS + 500);
      expect(rejections.describe()).toEqual([]);
      figures.push(
        `  long outage (backoff at ${MAX_RECONNECT_DELAY_MS} ms), memory: max ${log.maxMs.toFixed(1)} ms; ` +
          `both clients ready ${clientsReadyMs.toFixed(0)} ms, Redis-decided ${decidingMs.toFixed(0)} ms after restart began`,
      );
    });
  });

  it('saw no unhandled rejection in the whole file', () => {
    expect(rejections.describe()).toEqual([]);
  });
});
