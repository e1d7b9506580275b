/**
 * What each request costs Redis, counted by Redis itself (MONITOR) through a fixture app: one
 * decide script call per limited request, and none for a rejection the instance remembers (a
 * client flooding past its limit costs no round trip until it may pass again).
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { RATE_LIMIT_ALGORITHMS } from '@app/rate-limit';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { isDecideCall, monitorCommands, type CommandLog } from '../support/redis-monitor';
import { windowWithoutBoundary } from '../support/window-headroom';
import { createFixtureApp, PATIENT_TIMEOUT_MS } from './fixtures/fixture-app';
import { algorithmsController } from './fixtures/limited-controller';

let redis: TestRedis;
let app: INestApplication;
let commands: CommandLog;

beforeAll(async () => {
  redis = await startTestRedis();
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
  commands = await monitorCommands(redis.url);
});

afterAll(async () => {
  commands?.close();
  await app?.close();
  await redis?.close();
});

/** Decide script calls Redis ran since the last count. */
async function decideCalls(): Promise<number> {
  return (await commands.since()).filter(isDecideCall).length;
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
