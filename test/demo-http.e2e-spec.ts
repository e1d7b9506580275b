/**
 * What the demo serves besides its limited routes and the admin API, end to end against a real
 * Redis: the admin token it generates when ADMIN_TOKEN is unset, Swagger (as main.ts sets it
 * up) with bearer auth and /health documented, and /health with Redis up and down. The admin
 * API itself is the library's: libs/rate-limit/test/e2e/admin/.
 */
import { Logger, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import {
  ownsTestRedis,
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { createDemoApp } from './support/create-demo-app';
import { untilDisconnected, untilReady } from '../libs/rate-limit/test/support/redis-readiness';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdefghij';
const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };

let redis: TestRedis;
let app: INestApplication;

beforeAll(async () => {
  redis = await startTestRedis();
  app = await createDemoApp(
    { REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: uniquePrefix('demo-http'), ADMIN_TOKEN },
    { swagger: true },
  );
  await untilReady(app);
});

afterAll(async () => {
  await app?.close();
  await redis?.close();
});

describe('the admin token', () => {
  it('generates a token and logs it once when ADMIN_TOKEN is unset', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const other = await createDemoApp({
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix('admin-gen'),
    });
    try {
      const generated = warn.mock.calls
        .map(([message]) => String(message))
        .filter((message) => message.includes('generated an admin token'));
      expect(generated).toHaveLength(1);
      const token = /admin token for this run: (\S+)/.exec(generated[0])?.[1];
      expect(token).toMatch(/^[\w-]{43}$/);
      const server = other.getHttpServer();
      await request(server).get('/admin/policies').set(AUTH).expect(401);
      const res = await request(server)
        .get('/admin/policies')
        .set('Authorization', `Bearer ${token}`);
      expect(res.status).not.toBe(401);
    } finally {
      warn.mockRestore();
      await other.close();
    }
  });
});

describe('Swagger (/docs, /docs-json)', () => {
  it('serves the Swagger UI at /docs', async () => {
    const res = await request(app.getHttpServer()).get('/docs');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });

  it('declares bearer auth, and documents /health', async () => {
    const doc = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body as {
      paths: Record<string, { get?: object }>;
      components: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
    };
    expect(doc.components.securitySchemes?.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(doc.paths['/health']?.get).toBeDefined();
  });
});

// Last: it stops the Redis server (and brings it back).
describe('/health', () => {
  const describeOwned = ownsTestRedis() ? it : it.skip;

  it('answers 200 with Redis up and its PING latency', async () => {
    const res = await request(app.getHttpServer()).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      info: { redis: { status: 'up', store: 'redis', latencyMs: expect.any(Number) } },
    });
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });

  describeOwned('answers 503 while Redis is stopped, and 200 again after a restart', async () => {
    await redis.stop();
    try {
      await untilDisconnected(app);
      const down = await request(app.getHttpServer()).get('/health');
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({
        status: 'error',
        error: { redis: { status: 'down', store: 'redis', message: expect.any(String) } },
      });
    } finally {
      await redis.restart();
    }
    await untilReady(app);
    await request(app.getHttpServer()).get('/health').expect(200);
  });
});
