/**
 * The OpenAPI document as a client generator reads it: /docs-json of the demo (against a real
 * Redis) is valid OpenAPI, every route a documented `@RateLimit()` policy limits declares its
 * 429 and rate-limit headers (and only those routes do), and live responses of the public and
 * admin routes match the schemas and headers documented for their status.
 */
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import request from 'supertest';
import { RateLimit } from '@app/rate-limit';
import { documentRateLimits } from '@app/rate-limit/openapi';
import { type PolicyView } from '@app/rate-limit/admin';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { ResponseContract, type OpenApiDocument } from './support/openapi/response-contract';
import { problemCount, validateOpenApi } from './support/openapi/validate-openapi';
import { createDemoApp } from './support/create-demo-app';
import { untilReady } from '../libs/rate-limit/test/support/redis-readiness';
import { demoWindowsWithoutBoundary } from './support/demo-windows';

const ADMIN_TOKEN = 'e2e-openapi-token-0123456789abcdefghij';
const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const STANDARD = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
const PUBLIC = ['fixed-window', 'sliding-window', 'sliding-window-counter', 'token-bucket']
  .concat(['leaky-bucket', 'gcra', 'stacked', 'keyed', 'plan'])
  .map((route) => `/api/${route}`);
const UNDOCUMENTED = 'openapi-test.undocumented';

/** A route only this test serves: limited, with its one policy left out of the document. */
@Controller('openapi-test')
class UndocumentedController {
  @Get('undocumented')
  @RateLimit({ name: UNDOCUMENTED, limit: 5, window: '10s', openApi: false })
  undocumented() {
    return { ok: true };
  }
}

type Method = 'get' | 'patch' | 'put' | 'delete';

let redis: TestRedis;
let app: INestApplication;
let doc: OpenApiDocument;
let contract: ResponseContract;

beforeAll(async () => {
  redis = await startTestRedis();
  app = await createDemoApp(
    { REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: uniquePrefix('openapi'), ADMIN_TOKEN },
    { swagger: true, controllers: [UndocumentedController] },
  );
  await untilReady(app);
  // The limit spent below lands in one window wherever the clock is (in its own 10 s window, the
  // burst could straddle a boundary and be admitted again).
  await demoWindowsWithoutBoundary([app], ADMIN_TOKEN, ['demo.fixed-window']);
  doc = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body as OpenApiDocument;
  contract = new ResponseContract(doc);
});

afterAll(async () => {
  await app?.close();
  await redis?.close();
});

/** `/admin/policies/:name` as OpenAPI writes it: `/admin/policies/{name}`. */
const openApiPath = (path: string) => path.replace(/:([^/]+)/g, '{$1}');

/** Calls the route and expects the answer to match the document (labelled, for the diff). */
async function conforming(method: Method, url: string, docPath: string, body?: object) {
  const call = request(app.getHttpServer())[method](url).set(AUTH);
  const res = body === undefined ? await call : await call.send(body);
  const label = `${method.toUpperCase()} ${url} -> ${res.status}`;
  expect({ [label]: contract.problems(method, openApiPath(docPath), res) }).toEqual({
    [label]: [],
  });
  return res;
}

const operation = (path: string, method: string) =>
  doc.paths[openApiPath(path)]?.[method.toLowerCase()];
const policiesOf = (path: string, method = 'get') =>
  operation(path, method)?.['x-rate-limit-policies'] as string[] | undefined;

async function policyViews(): Promise<PolicyView[]> {
  return (await request(app.getHttpServer()).get('/admin/policies').set(AUTH).expect(200)).body;
}

describe('/docs-json', () => {
  it('is valid OpenAPI 3.0 (@seriousme/openapi-schema-validator)', async () => {
    const result = await validateOpenApi(doc);
    expect({ problems: problemCount(result), ...result }).toEqual({ problems: 0, valid: true });
  });

  it('is valid as OpenAPI 3.1 too, with nullable fields as JSON Schema null types', async () => {
    const config = new DocumentBuilder().setOpenAPIVersion('3.1.0').addBearerAuth().build();
    const doc31 = documentRateLimits(SwaggerModule.createDocument(app, config), app);
    const result = await validateOpenApi(doc31);
    expect({ problems: problemCount(result), ...result }).toEqual({ problems: 0, valid: true });
    const policy = doc31.components?.schemas?.PolicyViewDto as { properties: object };
    expect(policy.properties).toMatchObject({ override: { type: ['object', 'null'] } });
  });

  it('documents the 429 and the headers of every route a documented policy limits', async () => {
    const covered = new Set<string>();
    for (const policy of await policyViews()) {
      for (const route of policy.routes) {
        const op = operation(route.path, route.method);
        // Message and gateway handlers are no HTTP operations.
        if (!op || policy.name === UNDOCUMENTED) continue;
        covered.add(route.path);
        expect(policiesOf(route.path, route.method)).toContain(policy.name);
        expect(op.responses['429'].content?.['application/json'].schema).toEqual({
          $ref: '#/components/schemas/RateLimitExceeded',
        });
        expect(Object.keys(op.responses['429'].headers ?? {})).toEqual(
          expect.arrayContaining([...STANDARD, 'Retry-After']),
        );
        const successes = Object.keys(op.responses).filter((status) => status.startsWith('2'));
        expect(successes.length).toBeGreaterThan(0);
        for (const status of successes) {
          expect(Object.keys(op.responses[status].headers ?? {})).toEqual(STANDARD);
        }
      }
    }
    expect([...covered].sort()).toEqual(expect.arrayContaining([...PUBLIC].sort()));
  });

  it('names in x-rate-limit-policies only policies that limit that route', async () => {
    const views = new Map((await policyViews()).map((view) => [view.name, view]));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const name of (op['x-rate-limit-policies'] as string[] | undefined) ?? []) {
          const routes = views.get(name)?.routes.map((r) => `${r.method} ${r.path}`) ?? [];
          expect(routes.map(openApiPath)).toContain(`${method.toUpperCase()} ${path}`);
        }
      }
    }
  });

  it.each([
    ['/openapi-test/undocumented', 'its only policy says openApi: false'],
    ['/api/unlimited', '@SkipRateLimit()'],
    ['/health', 'no @RateLimit()'],
  ])('documents no rate limit on %s (%s)', (path) => {
    const op = operation(path, 'get');
    expect(op).toBeDefined();
    expect(op['x-rate-limit-policies']).toBeUndefined();
    expect(op.responses['429']).toBeUndefined();
    expect(op.responses['200'].headers).toBeUndefined();
  });
});

describe('live responses match the document', () => {
  it.each([...PUBLIC, '/api/unlimited'])('GET %s answers as documented', async (path) => {
    expect((await conforming('get', path, path)).status).toBe(200);
  });

  it('answers a documented 429, naming a documented policy, once a limit is spent', async () => {
    let res = await conforming('get', '/api/fixed-window', '/api/fixed-window');
    for (let i = 0; i < 10 && res.status === 200; i++) {
      res = await conforming('get', '/api/fixed-window', '/api/fixed-window');
    }
    expect(res.status).toBe(429);
    expect(policiesOf('/api/fixed-window')).toContain(res.body.policy);
  });

  it('answers the admin API as documented', async () => {
    const gcra = '/admin/policies/demo.gcra';
    const listed = await conforming('get', '/admin/policies', '/admin/policies');
    // The nullable `override` is exercised both ways: null here, an object after the PATCH.
    expect(listed.body.map((p: PolicyView) => p.override)).toContain(null);
    expect((await conforming('patch', gcra, '/admin/policies/:name', { limit: 7 })).status).toBe(
      200,
    );
    expect((await conforming('get', gcra, '/admin/policies/:name')).body.override).toMatchObject({
      limit: 7,
    });
    await conforming('get', '/admin/policies/nope', '/admin/policies/:name');
    const invalid = await conforming('patch', gcra, '/admin/policies/:name', { limit: -1 });
    expect(invalid.status).toBe(400);
    const keys = await conforming(
      'get',
      '/admin/policies/demo.fixed-window/keys',
      '/admin/policies/:name/keys',
    );
    const identity = encodeURIComponent(keys.body.items[0].identity);
    const client = `/admin/policies/demo.plan/clients/${encodeURIComponent('ip:203.0.113.9')}`;
    await conforming('put', client, '/admin/policies/:name/clients/:identity', { limit: 50 });
    await conforming('get', client, '/admin/policies/:name/clients/:identity');
    await conforming('get', '/admin/policies/demo.plan/clients', '/admin/policies/:name/clients');
    await conforming('delete', client, '/admin/policies/:name/clients/:identity');
    await conforming(
      'patch',
      '/admin/policies/demo.plan/tiers/pro',
      '/admin/policies/:name/tiers/:tier',
      {
        limit: 30,
      },
    );
    await conforming('delete', `${gcra}/override`, '/admin/policies/:name/override');
    await conforming(
      'delete',
      `/admin/policies/demo.fixed-window/keys/${identity}`,
      '/admin/policies/:name/keys/:identity',
    );
    await conforming('get', '/admin/traffic', '/admin/traffic');
    await conforming('get', `${gcra}/traffic`, '/admin/policies/:name/traffic');
    await conforming('get', `${gcra}/top-rejected`, '/admin/policies/:name/top-rejected');
    const audit = await conforming('get', '/admin/audit', '/admin/audit');
    expect(audit.body.items.map((entry: { before: unknown }) => entry.before)).toContain(null);
    await conforming('get', '/admin/instances', '/admin/instances');
    const denied = await request(app.getHttpServer()).get('/admin/policies');
    expect(contract.problems('get', '/admin/policies', denied)).toEqual([]);
    expect(denied.status).toBe(401);
  });
});
