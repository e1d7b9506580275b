/**
 * What adaptive protection costs Redis per request, counted by Redis itself (MONITOR): on and
 * idle, a request is still one decide script call and nothing else; the protection's own
 * commands (its heartbeat, once a second) do not grow with the requests.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { LoadSignals } from '../../../src/adaptive/pressure';
import { AdaptiveLimits } from '../../../src/runtime/adaptive/adaptive-limits.service';
import { ADAPTIVE_LOAD_SOURCE } from '../../../src/runtime/adaptive/load-source';
import { isDecideCall, monitorCommands, type CommandLog } from '../../support/redis-monitor';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { windowWithoutBoundary } from '../../support/window-headroom';
import { createFixtureApp, PATIENT_TIMEOUT_MS } from '../fixtures/fixture-app';
import { limitedController } from '../fixtures/limited-controller';

const IDLE: LoadSignals = { elu: 0.1, eventLoopDelayMs: 1, heap: 0.1, tickLatenessMs: 0 };
/** Commands Redis runs without a request, at most, per second: heartbeats, stats, refreshes. */
const BACKGROUND_PER_SECOND = 6;

let redis: TestRedis;
let app: INestApplication;
let commands: CommandLog;

beforeAll(async () => {
  redis = await startTestRedis();
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
  commands = await monitorCommands(redis.url);
});

afterAll(async () => {
  commands?.close();
  await app?.close();
  await redis?.close();
});

it('on and idle: 500 requests cost 500 decide calls, and its heartbeat does not grow with them', async () => {
  const adaptive = app.get(AdaptiveLimits);
  expect(adaptive.active).toBe(true);
  // Past the first heartbeat, so the burst is measured with the protection running.
  for (let i = 0; i < 4; i++) await adaptive.nextTick();
  await commands.since();
  const started = performance.now();
  for (let i = 0; i < 500; i++) {
    const res = await request(app.getHttpServer())
      .get('/api/plain')
      .set('X-Forwarded-For', `198.18.${i >> 8}.${i & 255}`);
    expect(res.status).toBe(200);
  }
  const made = await commands.since();
  const seconds = (performance.now() - started) / 1000;
  const decide = made.filter(isDecideCall);
  const other = made.length - decide.length;
  console.log(
    `adaptive on, idle: 500 requests in ${seconds.toFixed(1)} s -> ${decide.length} decide ` +
      `calls, ${other} other commands (${made
        .filter((args) => !isDecideCall(args))
        .map((args) => args[0])
        .join(' ')})`,
  );
  expect(decide.length).toBe(500);
  expect(other).toBeLessThanOrEqual(BACKGROUND_PER_SECOND * Math.ceil(seconds + 1));
});
