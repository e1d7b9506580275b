/**
 * What adaptive protection costs Redis per request, counted by Redis itself (MONITOR): on and
 * idle, a request is still one decide script call and nothing else; the protection's own
 * commands (its heartbeat, once a second) do not grow with the requests.
 */
import type { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import request from 'supertest';
import { loadDecideScripts } from '../../../src/store/redis/decide-script';
import type { LoadSignals } from '../../../src/adaptive/pressure';
import { AdaptiveLimits } from '../../../src/runtime/adaptive/adaptive-limits.service';
import { ADAPTIVE_LOAD_SOURCE } from '../../../src/runtime/adaptive/load-source';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { windowWithoutBoundary } from '../../support/window-headroom';
import { createFixtureApp, PATIENT_TIMEOUT_MS } from '../fixtures/fixture-app';
import { limitedController } from '../fixtures/limited-controller';

const IDLE: LoadSignals = { elu: 0.1, eventLoopDelayMs: 1, heap: 0.1, tickLatenessMs: 0 };
const scripts = loadDecideScripts();
const DECIDE_SHAS = new Set([
  scripts.all.sha1,
  ...Object.values(scripts.byAlgorithm).map((script) => script.sha1),
]);
/** Commands Redis runs without a request, at most, per second: heartbeats, stats, refreshes. */
const BACKGROUND_PER_SECOND = 6;

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
      keyPrefix: uniquePrefix('adaptive-cmds'),
      commandTimeoutMs: PATIENT_TIMEOUT_MS,
      trustProxy: 'loopback',
      adaptive: { mode: 'enforce', policies: 'all' },
    },
    controllers: [
      limitedController('api', {
        plain: [{ name: 'fx.plain', limit: 5, window: windowWithoutBoundary() }],
      }),
    ],
    overrides: [{ provide: ADAPTIVE_LOAD_SOURCE, useValue: { sample: () => IDLE, stop() {} } }],
  });
  for (const script of [scripts.all, ...Object.values(scripts.byAlgorithm)]) {
    await admin.script('LOAD', script.source);
  }
  const monitorOf = new Redis(redis.url);
  monitor = await monitorOf.monitor();
  monitorOf.disconnect();
  // Commands a script runs are shown too, from the source "lua": only the calls made count.
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua') seen.push(args);
  });
});

afterAll(async () => {
  monitor?.disconnect();
  admin?.disconnect();
  await app?.close();
  await redis?.close();
});

/** Commands Redis ran since the last call; ends at a marker Redis echoed. */
async function commandsSince(): Promise<string[][]> {
  const marker = `marker-${Math.random()}`;
  await admin.echo(marker);
  while (!seen.some((args) => args[0] === 'echo' && args[1] === marker)) {
    await new Promise((resolve) => monitor.once('monitor', resolve));
  }
  const commands = seen.filter((args) => !(args[0] === 'echo' && args[1] === marker));
  seen.length = 0;
  return commands;
}

it('on and idle: 500 requests cost 500 decide calls, and its heartbeat does not grow with them', async () => {
  const adaptive = app.get(AdaptiveLimits);
  expect(adaptive.active).toBe(true);
  // Past the first heartbeat, so the burst is measured with the protection running.
  for (let i = 0; i < 4; i++) await adaptive.nextTick();
  await commandsSince();
  const started = performance.now();
  for (let i = 0; i < 500; i++) {
    const res = await request(app.getHttpServer())
      .get('/api/plain')
      .set('X-Forwarded-For', `198.18.${i >> 8}.${i & 255}`);
    expect(res.status).toBe(200);
  }
  const commands = await commandsSince();
  const seconds = (performance.now() - started) / 1000;
  const decide = commands.filter((args) => args[0] === 'evalsha' && DECIDE_SHAS.has(args[1]));
  const other = commands.length - decide.length;
  console.log(
    `adaptive on, idle: 500 requests in ${seconds.toFixed(1)} s -> ${decide.length} decide ` +
      `calls, ${other} other commands (${commands
        .filter((args) => !(args[0] === 'evalsha' && DECIDE_SHAS.has(args[1])))
        .map((args) => args[0])
        .join(' ')})`,
  );
  expect(decide.length).toBe(500);
  expect(other).toBeLessThanOrEqual(BACKGROUND_PER_SECOND * Math.ceil(seconds + 1));
});
