/**
 * What each onRedisError mode must do while Redis cannot decide, and that Redis decides again
 * afterwards: the checks the stopped, paused and long-outage tests share.
 */
import type { INestApplication } from '@nestjs/common';
import type { Response } from 'supertest';
import type { OnRedisError } from '@app/rate-limit';
import { FallbackStore } from '@app/rate-limit/engine/fallback-store';
import { InstanceHeartbeat } from '@app/rate-limit/runtime/instance-heartbeat.service';
import type { TestRedis } from '../../support/redis-test-server';
import {
  LIMITED_ROUTES,
  redisKeyExists,
  stateKey,
  timedGet,
  type FaultLog,
} from './outage-fixture';

let ipCounter = 0;
/** A client IP no earlier phase used, so every phase starts from a clean bucket. */
export const freshIp = (): string => `203.0.113.${++ipCounter}`;

/**
 * What each mode must do while Redis cannot decide, the same whether Redis fails calls at once
 * (stopped: nothing was sent) or lets them time out (paused: their outcome unknown); returns the
 * client IP it used.
 */
export async function exerciseFault(
  mode: OnRedisError,
  a: INestApplication,
  b: INestApplication,
  log: FaultLog,
): Promise<string> {
  const ip = freshIp();
  if (mode === 'memory') await fallBackToShares(a, b, log, ip);
  if (mode === 'open') {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await log.get(i % 2 === 0 ? a : b, '/api/fixed-window', ip)).status);
    for (const path of LIMITED_ROUTES) statuses.push((await log.get(a, path, ip)).status);
    statuses.push((await log.get(b, '/api/unlimited', ip)).status);
    expect(statuses).toEqual(new Array(8 + LIMITED_ROUTES.length + 1).fill(200));
  }
  if (mode === 'closed') {
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
  }
  return ip;
}

/**
 * Each instance admits its share of the limit of 5: 3 for the first of the two live instances
 * (in id order), 2 for the second, so together they admit the limit once. Also when the first
 * call timed out (Redis paused): whatever Redis does with it later, the client's answer to it
 * is the fallback's, counted in A's share.
 */
async function fallBackToShares(
  a: INestApplication,
  b: INestApplication,
  log: FaultLog,
  ip: string,
): Promise<void> {
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
  expect(onA[5].body).toMatchObject({ statusCode: 429, policy: 'fx.fixed-window' });
  // Decided by A's own in-memory store: the state is there, and B (its own memory) has its
  // own share for the same client.
  const key = stateKey(a, 'fx.fixed-window', `ip:${ip}`);
  expect(a.get(FallbackStore).memory.keyspace.get(key)).toBeDefined();
  const onB: Response[] = [];
  for (let i = 0; i < 4; i++) onB.push(await log.get(b, '/api/fixed-window', ip));
  expect(onB.map((r) => r.status)).toEqual([
    ...Array<number>(shareB).fill(200),
    ...Array<number>(4 - shareB).fill(429),
  ]);
  expect(onB[0].headers['ratelimit-remaining']).toBe(String(shareB - 1));
}

/**
 * Redis decides again: one fresh client alternating across A and B gets one shared budget
 * (per-instance memory would admit 8, fail-open 8, fail-closed none), and the state is in Redis.
 */
export async function expectRedisDecides(
  redis: TestRedis,
  a: INestApplication,
  b: INestApplication,
): Promise<void> {
  const ip = freshIp();
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
  expect(await redisKeyExists(redis, stateKey(a, 'fx.fixed-window', `ip:${ip}`))).toBe(true);
}
