/**
 * The admin API's HTTP layer, end to end on a fixture app against a real Redis: the bearer token
 * on every route, malformed input, and how the routes are documented in an OpenAPI document
 * (tags, bearer auth, request and response schemas). Behaviour of list/update/keys is covered
 * by the other files here; the demo's own Swagger UI and /health are test/demo-http.e2e-spec.ts.
 */
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import request from 'supertest';
import { untilReady } from '../../support/redis-readiness';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { windowWithoutBoundary } from '../../support/window-headroom';
import {
  ADMIN_AUTH as AUTH,
  createFixtureApp,
  FIXTURE_ADMIN_TOKEN as ADMIN_TOKEN,
} from '../fixtures/fixture-app';
import { algorithmsController, limitedController } from '../fixtures/limited-controller';
import { planPolicy } from '../fixtures/plan-policy';
import { ADMIN_ROUTES, type Method } from './admin-routes';

const WINDOW = windowWithoutBoundary();
const ROUTES = [
  algorithmsController('fx', { limit: 5, window: WINDOW }, ['gcra']),
  limitedController('api', { plan: [planPolicy('fx.plan', WINDOW)] }),
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
  app = await createFixtureApp({
    limiter: { redis: redis.url, keyPrefix: uniquePrefix('admin-http') },
    controllers: ROUTES,
    // Each route is tried without and with a wrong token here: not a guessing client.
    admin: { failedTokenLimit: { limit: 100, window: '15m' } },
  });
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
});

describe('admin API: malformed input', () => {
  it('answers 400 to malformed JSON', async () => {
    const res = await request(app.getHttpServer())
      .patch('/admin/policies/fx.gcra')
      .set(AUTH)
      .set('Content-Type', 'application/json')
      .send('{"limit": 5,');
    expect(res.status).toBe(400);
  });

  it('answers 400 naming the field to an invalid PATCH, before looking up the policy', async () => {
    const res = await request(app.getHttpServer())
      .patch('/admin/policies/fx.gcra')
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
      .patch('/admin/policies/fx.gcra')
      .set(AUTH)
      .send({});
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual([expect.stringMatching(/^body must set at least one of/)]);
  });

  it('answers 400 naming the field to a bad keys query', async () => {
    const res = await request(app.getHttpServer())
      .get('/admin/policies/fx.gcra/keys?count=5000&match=*')
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

describe("the admin API's OpenAPI documentation", () => {
  let doc: OpenApiDocument;

  beforeAll(() => {
    const config = new DocumentBuilder().addBearerAuth().build();
    doc = SwaggerModule.createDocument(app, config) as unknown as OpenApiDocument;
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
});
