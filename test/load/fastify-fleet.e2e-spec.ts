/**
 * The demo on Fastify as users run it (`HTTP_PLATFORM=fastify node dist/apps/demo/main.js`):
 * two processes on one redis-server admit exactly the limit of bursts split across both, and
 * answer a rejected client exactly as an Express process on the same Redis does (SPEC section
 * 13: identical headers, bodies and identities).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../../libs/rate-limit/test/support/redis-test-server';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';
import { ADMIN_TOKEN, type Fleet, startFleet } from '../support/demo-fleet';
import { type DemoProcess, type DemoResponse, startDemoProcess } from '../support/demo-process';
import {
  type LoadGenerator,
  newSourceAddress,
  startLoadGenerator,
} from '../support/load-generator';

const LIMIT = 50;
const BURST = 400;
const POLICY = 'demo.token-bucket';
const PATH = '/api/token-bucket';

/** What a rejected client sees, the seconds left out (two processes may round them apart). */
function rejection({ status, headers, body }: DemoResponse): Record<string, unknown> {
  const seconds = (value: unknown) => /^\d+$/.test(String(value));
  const parsed = JSON.parse(body) as Record<string, unknown>;
  return {
    status,
    type: headers['content-type'],
    limit: headers['ratelimit-limit'],
    remaining: headers['ratelimit-remaining'],
    resetInSeconds: seconds(headers['ratelimit-reset']),
    retryAfterInSeconds: seconds(headers['retry-after']),
    body: { ...parsed, retryAfter: typeof parsed.retryAfter === 'number' },
  };
}

/** The platform a process runs on, as its answers show it (Express names itself). */
const platformOf = (headers: IncomingHttpHeaders) =>
  headers['x-powered-by'] === 'Express' ? 'express' : 'fastify';

/** A non-loopback IPv4 address of this machine, if it has one. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

function status(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    req.end();
  });
}

describe('two demo processes on Fastify, one redis-server', () => {
  let redis: TestRedis;
  let fleet: Fleet;
  let express: DemoProcess;
  let load: LoadGenerator;
  const env = { HTTP_PLATFORM: 'fastify', RATE_LIMIT_KEY_PREFIX: uniquePrefix('fastify-fleet') };

  beforeAll(async () => {
    redis = await startTestRedis();
    load = startLoadGenerator();
    fleet = await startFleet(2, { REDIS_URL: redis.url }, env);
    await fleet.setPolicy(POLICY, {
      limit: LIMIT,
      windowMs: windowWithoutBoundary(),
      burst: LIMIT,
    });
    // Started after the change: it reads the policy's thresholds from Redis at start.
    express = await startDemoProcess({
      ...env,
      HTTP_PLATFORM: 'express',
      REDIS_URL: redis.url,
      ADMIN_TOKEN,
    });
  }, 120_000);
  afterAll(async () => {
    load?.close();
    await Promise.all([fleet?.stop(), express?.stop()]);
    await redis?.close();
  });

  it('runs on the platform it was told', async () => {
    const answers = await Promise.all(
      [...fleet.instances, express].map((instance) => instance.get('/api/unlimited')),
    );
    expect(answers.map((answer) => platformOf(answer.headers))).toEqual([
      'fastify',
      'fastify',
      'express',
    ]);
  });

  it.each(['cold', 'warm'])(
    `%s: a burst of ${BURST} from one client across both admits exactly ${LIMIT}`,
    async () => {
      const result = await load.burst({
        targets: fleet.targets,
        path: PATH,
        count: BURST,
        sourceAddress: newSourceAddress(),
      });
      expect(result.statuses).toEqual({ 200: LIMIT, 429: BURST - LIMIT });
      expect(await fleet.faults()).toEqual({
        fallbackDecisions: 0,
        redisErrors: 0,
        circuitOpenings: 0,
      });
    },
    60_000,
  );

  it('a client over its limit gets the same 429 from Fastify and Express', async () => {
    const [a, b] = fleet.instances;
    // This client is 127.0.0.1: it spends its limit on A, then B and the Express process agree.
    for (let i = 0; i < LIMIT; i++) expect((await a.get(PATH)).status).toBe(200);
    const answers = [await a.get(PATH), await b.get(PATH), await express.get(PATH)];
    const [fromA, fromB, fromExpress] = answers.map(rejection);
    expect(fromA).toEqual({
      status: 429,
      type: 'application/json; charset=utf-8',
      limit: String(LIMIT),
      remaining: '0',
      resetInSeconds: true,
      retryAfterInSeconds: true,
      body: { statusCode: 429, message: 'Too Many Requests', policy: POLICY, retryAfter: true },
    });
    expect(fromB).toEqual(fromA);
    expect(fromExpress).toEqual(fromA);
  });

  it('refuses to start on a platform it does not know, naming the choices', async () => {
    await expect(
      startDemoProcess({ HTTP_PLATFORM: 'koa', REDIS_URL: redis.url, ADMIN_TOKEN }),
    ).rejects.toThrow('HTTP_PLATFORM must be one of express, fastify (got "koa")');
  });

  // Fastify alone listens on localhost only when no host is given; the demo listens everywhere.
  (externalAddress ? it : it.skip)('answers on every interface, as on Express', async () => {
    for (const instance of [...fleet.instances, express]) {
      expect(await status(`http://${externalAddress}:${instance.port}/api/unlimited`)).toBe(200);
      expect(await status(`http://[::1]:${instance.port}/api/unlimited`)).toBe(200);
    }
  });
});
