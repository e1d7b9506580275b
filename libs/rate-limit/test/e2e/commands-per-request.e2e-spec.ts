/**
 * What each request costs Redis, counted by Redis itself (MONITOR) through a fixture app: one
 * decide script call per limited request, and none for a rejection the instance remembers (a
 * client flooding past its limit costs no round trip until it may pass again).
 */
import type { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import request from 'supertest';
import { RATE_LIMIT_ALGORITHMS } from '@app/rate-limit';
import { loadDecideScripts } from '../../src/store/redis/decide-script';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { windowWithoutBoundary } from '../support/window-headroom';
import { createFixtureApp, PATIENT_TIMEOUT_MS } from './fixtures/fixture-app';
import { algorithmsController } from './fixtures/limited-controller';

const scripts = loadDecideScripts();
const DECIDE_SHAS = new Set([
  scripts.all.sha1,
  ...Object.values(scripts.byAlgorithm).map((script) => script.sha1),
]);

let redis: TestRedis;
let app: INestApplication;
let monitor: Awaited<ReturnType<Redis['monitor']>>;
let admin: Redis;
const seen: string[][] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  admin = new Redis(redis.url);
  app = await createFixtureApp({
    limiter: {
      redis: redis.url,
      keyPrefix: uniquePrefix('cmds'),
      commandTimeoutMs: PATIENT_TIMEOUT_MS,
      trustProxy: 'loopback',
    },
    // Nothing refills and no window ends during a burst: exactly 5 admitted, whatever the time.
    controllers: [algorithmsController('algo', { limit: 5, window: windowWithoutBoundary() })],
  });
  // Loaded as on a server that has run them before: the first call on a server without them
  // costs a NOSCRIPT and one SCRIPT LOAD more (test/redis-store.int-spec.ts counts that case).
  for (const script of [scripts.all, ...Object.values(scripts.byAlgorithm)]) {
    await admin.script('LOAD', script.source);
  }
  // monitor() opens a connection of its own: the client it is called on is closed at once.
  const monitorOf = new Redis(redis.url);
  monitor = await monitorOf.monitor();
  monitorOf.disconnect();
  monitor.on('monitor', (_time: string, args: string[]) => seen.push(args));
});

afterAll(async () => {
  monitor?.disconnect();
  admin?.disconnect();
  await app?.close();
  await redis?.close();
});

/** Decide script calls Redis ran since the last count; ends at a marker Redis echoed. */
async function decideCalls(): Promise<number> {
  const marker = `marker-${Math.random()}`;
  await admin.echo(marker);
  while (!seen.some((args) => args[0] === 'echo' && args[1] === marker)) {
    await new Promise((resolve) => monitor.once('monitor', resolve));
  }
  const calls = seen.filter((args) => args[0] === 'evalsha' && DECIDE_SHAS.has(args[1])).length;
  seen.length = 0;
  return calls;
}

it.each(RATE_LIMIT_ALGORITHMS.map((algo, i) => [algo, `203.0.113.${120 + i}`]))(
  '%s: 5 admitted and 7 rejected cost 6 script calls (client %s)',
  async (algo, ip) => {
    await decideCalls(); // start counting from here
    const statuses: number[] = [];
    const calls: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await request(app.getHttpServer())
        .get(`/algo/${algo}`)
        .set('X-Forwarded-For', ip);
      statuses.push(res.status);
      calls.push(await decideCalls());
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    // Each admitted request and the first rejection: one call; the remembered rest: none.
    expect(calls).toEqual([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
  },
);
