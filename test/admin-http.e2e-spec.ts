/**
 * The admin API's HTTP layer and the health check, end to end: the demo app (with Swagger, as
 * main.ts sets it up) against a real Redis. Behaviour of list/update/keys is covered elsewhere;
 * here: the bearer token, the OpenAPI document, malformed input, and /health with Redis up and
 * down.
 */
import { Logger, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import {
  ownsTestRedis,
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { createDemoApp } from './utils/create-demo-app';
import { untilDisconnected, untilReady } from './utils/redis-readiness';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdefghij';
const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };

type Method = 'get' | 'patch' | 'put' | 'delete';

/** Every admin route: method, OpenAPI path, a concrete URL, and its success status. */
const ADMIN_ROUTES: { method: Method; path: string; url: string; ok: 200 | 204 }[] = [
  { method: 'get', path: '/admin/policies', url: '/admin/policies', ok: 200 },
  { method: 'get', path: '/admin/policies/{name}', url: '/admin/policies/demo.gcra', ok: 200 },
  { method: 'patch', path: '/admin/policies/{name}', url: '/admin/policies/demo.gcra', ok: 200 },
  {
    method: 'delete',
    path: '/admin/policies/{name}/override',
    url: '/admin/policies/demo.gcra/override',
    ok: 200,
  },
  {
    method: 'get',
    path: '/admin/policies/{name}/keys',
    url: '/admin/policies/demo.gcra/keys',
    ok: 200,
  },
  {
    method: 'delete',
    path: '/admin/policies/{name}/keys/{identity}',
    url: `/admin/policies/demo.gcra/keys/${encodeURIComponent('ip:1.2.3.4')}`,
    ok: 204,
  },
  {
    method: 'patch',
    path: '/admin/policies/{name}/tiers/{tier}',
    url: '/admin/policies/demo.plan/tiers/pro',
    ok: 200,
  },
  {
    method: 'delete',
    path: '/admin/policies/{name}/tiers/{tier}/override',
    url: '/admin/policies/demo.plan/tiers/pro/override',
    ok: 200,
  },
  {
    method: 'get',
    path: '/admin/policies/{name}/clients',
    url: '/admin/policies/demo.plan/clients',
    ok: 200,
  },
  {
    method: 'get',
    path: '/admin/policies/{name}/clients/{identity}',
    url: `/admin/policies/demo.plan/clients/${encodeURIComponent('ip:1.2.3.4')}`,
    ok: 200,
  },
  {
    method: 'put',
    path: '/admin/policies/{name}/clients/{identity}',
    url: `/admin/policies/demo.plan/clients/${encodeURIComponent('ip:1.2.3.4')}`,
    ok: 200,
  },
  {
    method: 'delete',
    path: '/admin/policies/{name}/clients/{identity}',
    url: `/admin/policies/demo.plan/clients/${encodeURIComponent('ip:1.2.3.4')}`,
    ok: 204,
  },
];

interface OpenApiOperation {
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}

interface OpenApiDocument {
  paths: Record<string, Partial<Record<Method, OpenApiOperation>>>;
  components: {
    schemas: Record<string, { properties?: Record<string, unknown> }>;
    securitySchemes?: Record<string, { type: string; scheme?: string }>;
  };
}

const jsonSchemaOf = (op: OpenApiOperation, status: string) =>
  op.responses[status]?.content?.['application/json']?.schema;

let redis: TestRedis;
let app: INestApplication;

beforeAll(async () => {
  redis = await startTestRedis();
  app = await createDemoApp(
    {
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix('admin-http'),
      ADMIN_TOKEN,
      // Each route is tried without and with a wrong token here: not a guessing client.
      ADMIN_FAILED_TOKEN_LIMIT: '100',
    },
    { swagger: true },
  );
  await untilReady(app);
});

afterAll(async () => {
  await app?.close();
  await redis?.close();
});

describe('admin API: bearer token', () => {
  it.each(ADMIN_ROUTES)('$method $url answers 401 without a token', async ({ method, url }) => {
    const res = await request(app.getHttpServer())[method](url).send({ limit: 3 });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it.each(ADMIN_ROUTES)('$method $url answers 401 with a wrong token', async ({ method, url }) => {
    const res = await request(app.getHttpServer())
      [method](url)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}x`)
      .send({ limit: 3 });
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).not.toContain(ADMIN_TOKEN);
  });

  it('lets the right token through the guard', async () => {
    const res = await request(app.getHttpServer()).get('/admin/policies').set(AUTH);
    expect(res.status).not.toBe(401);
  });

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

describe('admin API: malformed input', () => {
  it('answers 400 to malformed JSON', async () => {
    const res = await request(app.getHttpServer())
      .patch('/admin/policies/demo.gcra')
      .set(AUTH)
      .set('Content-Type', 'application/json')
      .send('{"limit": 5,');
    expect(res.status).toBe(400);
  });

  it('answers 400 naming the field to an invalid PATCH, before looking up the policy', async () => {
    const res = await request(app.getHttpServer())
      .patch('/admin/policies/demo.gcra')
      .set(AUTH)
      .send({ limit: -1, window: 'soon', algo: 'nope', burst: 1.5, colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(
      expect.arrayContaining([
        'limit must not be less than 1',
        expect.stringMatching(/^window must be a duration/),
        expect.stringMatching(/^algo must be one of the following values/),
        'burst must be an integer number',
        'property colour should not exist',
      ]),
    );
  });

  it('answers 400 to an empty PATCH body', async () => {
    const res = await request(app.getHttpServer())
      .patch('/admin/policies/demo.gcra')
      .set(AUTH)
      .send({});
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual([expect.stringMatching(/^body must set at least one of/)]);
  });

  it('answers 400 naming the field to a bad keys query', async () => {
    const res = await request(app.getHttpServer())
      .get('/admin/policies/demo.gcra/keys?count=5000&match=*')
      .set(AUTH);
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(
      expect.arrayContaining([
        'count must not be greater than 1000',
        'property match should not exist',
      ]),
    );
  });
});

describe('OpenAPI document (/docs-json)', () => {
  let doc: OpenApiDocument;

  beforeAll(async () => {
    const res = await request(app.getHttpServer()).get('/docs-json').expect(200);
    doc = res.body as OpenApiDocument;
  });

  it('serves the Swagger UI at /docs', async () => {
    const res = await request(app.getHttpServer()).get('/docs');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });

  it('declares bearer auth', () => {
    expect(doc.components.securitySchemes?.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  it.each(ADMIN_ROUTES)(
    'documents $method $path with bearer auth and response schemas',
    ({ method, path, ok }) => {
      const op = doc.paths[path]?.[method];
      expect(op).toBeDefined();
      expect(op!.tags).toContain('rate-limit admin');
      expect(op!.security).toContainEqual({ bearer: [] });
      if (ok === 200) expect(jsonSchemaOf(op!, '200')).toBeDefined();
      else expect(op!.responses['204']).toBeDefined();
      expect(jsonSchemaOf(op!, '401')).toEqual({
        $ref: '#/components/schemas/AdminErrorResponseDto',
      });
      if (path !== '/admin/policies') {
        expect(jsonSchemaOf(op!, '404')).toEqual({
          $ref: '#/components/schemas/AdminErrorResponseDto',
        });
      }
    },
  );

  it('documents PATCH with the UpdatePolicyDto request body and a 400', () => {
    const op = doc.paths['/admin/policies/{name}'].patch!;
    expect(op.requestBody?.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/UpdatePolicyDto',
    });
    expect(Object.keys(doc.components.schemas.UpdatePolicyDto.properties ?? {}).sort()).toEqual(
      ['algo', 'burst', 'enabled', 'limit', 'mode', 'window', 'windowMs'].sort(),
    );
    expect(jsonSchemaOf(op, '200')).toEqual({ $ref: '#/components/schemas/PolicyViewDto' });
    expect(jsonSchemaOf(op, '400')).toBeDefined();
  });

  it('documents the response shapes (policy view, key usage page)', () => {
    expect(jsonSchemaOf(doc.paths['/admin/policies'].get!, '200')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/PolicyViewDto' },
    });
    expect(jsonSchemaOf(doc.paths['/admin/policies/{name}/keys'].get!, '200')).toEqual({
      $ref: '#/components/schemas/KeyUsagePageDto',
    });
    const { schemas } = doc.components;
    expect(Object.keys(schemas.PolicyViewDto.properties ?? {})).toEqual(
      expect.arrayContaining([
        'name',
        'algo',
        'limit',
        'windowMs',
        'burst',
        'mode',
        'enabled',
        'routes',
        'defaults',
        'override',
        'stats',
      ]),
    );
    for (const name of [
      'PolicyRouteDto',
      'PolicyStatsDto',
      'PolicyThresholdsDto',
      'KeyUsageDto',
      'KeyUsagePageDto',
    ]) {
      expect(schemas[name]?.properties).toBeDefined();
    }
    // Inline, not a $ref: OpenAPI 3.0 has no null type, and null fails an allOf of a $ref.
    expect(schemas.PolicyViewDto.properties?.override).toMatchObject({
      type: 'object',
      nullable: true,
      properties: { limit: { type: 'integer' }, windowMs: { type: 'integer' } },
    });
    const params = doc.paths['/admin/policies/{name}/keys'].get!.parameters ?? [];
    expect(params.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(
      expect.arrayContaining(['cursor', 'count']),
    );
  });

  it('documents /health', () => {
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
