import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DocumentBuilder, SwaggerModule, type SchemaObject } from '@nestjs/swagger';
import request from 'supertest';
import { RateLimitConfigError } from '../src/errors/rate-limit-config.error';
import type { PolicyView } from '../src/admin/policy-view.interface';
import { RateLimitAdminModule } from '../src/admin/rate-limit-admin.module';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { RateLimitAdminService } from '../src/admin/rate-limit-admin.service';
import { PolicyKeys } from '../src/admin/policy-keys';
import { UnknownPolicyError } from '../src/errors/unknown-policy.error';
import { FailedTokenLimiter } from '../src/admin/failed-token-limiter';
import { ClientOverridesAdmin } from '../src/admin/client-overrides-admin';
import { RateLimitAdminActivity } from '../src/admin/rate-limit-admin-activity.service';

const TOKEN = 'unit-admin-token-0123456789abcdef';
const AUTH = { Authorization: `Bearer ${TOKEN}` };

const VIEW = { name: 'demo.gcra', algo: 'gcra', limit: 5 } as PolicyView;

/** Stands in for the real service, whose dependencies come from RateLimitModule. */
function fakeService() {
  return {
    list: jest.fn(async () => [VIEW]),
    get: jest.fn(async (name: string) => {
      if (name !== VIEW.name) throw new UnknownPolicyError(name);
      return VIEW;
    }),
    update: jest.fn(async () => VIEW),
    clearOverride: jest.fn(async () => VIEW),
    keys: jest.fn(async () => ({ items: [], cursor: null })),
    resetKey: jest.fn(async () => undefined),
  };
}

@Module({
  providers: [{ provide: 'ADMIN_TOKEN', useValue: TOKEN }],
  exports: ['ADMIN_TOKEN'],
})
class TokenSourceModule {}

async function boot(
  imported: ReturnType<typeof RateLimitAdminModule.forRoot>,
  service = fakeService(),
  swagger = false,
): Promise<{ app: INestApplication; service: ReturnType<typeof fakeService>; doc?: unknown }> {
  // The core on the memory store: the admin plane's own providers (stats, traffic, audit) join it.
  const moduleRef = await Test.createTestingModule({
    imports: [RateLimitModule.forRoot({}), imported],
  })
    .overrideProvider(RateLimitAdminService)
    .useValue(service)
    // Its dependencies come from RateLimitModule too; failures are counted in its own tests.
    .overrideProvider(FailedTokenLimiter)
    .useValue({ failed: async () => undefined })
    .overrideProvider(PolicyKeys)
    .useValue({})
    // Tried on the memory store in rate-limit-admin-clients.controller.spec.ts.
    .overrideProvider(ClientOverridesAdmin)
    .useValue({})
    // Tried against real Redis in libs/rate-limit/test/e2e/dashboard-data.e2e-spec.ts.
    .overrideProvider(RateLimitAdminActivity)
    .useValue({})
    .compile();
  const app = moduleRef.createNestApplication({ logger: false });
  const doc = swagger
    ? SwaggerModule.createDocument(app, new DocumentBuilder().addBearerAuth().build())
    : undefined;
  await app.init();
  return { app, service, doc };
}

describe('RateLimitAdminModule', () => {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('forRoot mounts the controller under /admin by default (RouterModule)', async () => {
    ({ app } = await boot(RateLimitAdminModule.forRoot({ token: TOKEN })));
    const ok = await request(app.getHttpServer()).get('/admin/policies').set(AUTH);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([VIEW]);
    await request(app.getHttpServer()).get('/policies').set(AUTH).expect(404);
  });

  it('forRootAsync takes imports/inject/useFactory for the token and `path` as an extra', async () => {
    let doc: unknown;
    ({ app, doc } = await boot(
      RateLimitAdminModule.forRootAsync({
        imports: [TokenSourceModule],
        inject: ['ADMIN_TOKEN'],
        useFactory: (token: string) => ({ token }),
        path: 'ops/rate-limit',
      }),
      fakeService(),
      true,
    ));
    const server = app.getHttpServer();
    await request(server).get('/ops/rate-limit/policies').set(AUTH).expect(200);
    await request(server).get('/ops/rate-limit/policies').expect(401);
    await request(server).get('/admin/policies').set(AUTH).expect(404);
    // Swagger sees the RouterModule prefix too.
    expect(Object.keys((doc as { paths: object }).paths)).toEqual(
      expect.arrayContaining([
        '/ops/rate-limit/policies',
        '/ops/rate-limit/policies/{name}',
        '/ops/rate-limit/policies/{name}/keys/{identity}',
        '/ops/rate-limit/policies/{name}/tiers/{tier}',
        '/ops/rate-limit/policies/{name}/tiers/{tier}/override',
        '/ops/rate-limit/policies/{name}/clients',
        '/ops/rate-limit/policies/{name}/clients/{identity}',
        '/ops/rate-limit/traffic',
        '/ops/rate-limit/policies/{name}/traffic',
        '/ops/rate-limit/policies/{name}/top-rejected',
        '/ops/rate-limit/audit',
        '/ops/rate-limit/instances',
      ]),
    );
    // The dashboard's page and files are not API routes.
    expect(Object.keys((doc as { paths: object }).paths).join()).not.toContain('dashboard');
    // OpenAPI 3.0 has no null type, and ignores `nullable` beside a $ref: the schema is inline.
    const schemas = (doc as { components: { schemas: Record<string, SchemaObject> } }).components
      .schemas;
    expect(schemas.TierViewDto.properties?.override).toMatchObject({
      type: 'object',
      nullable: true,
      properties: { limit: { type: 'integer' }, windowMs: { type: 'integer' } },
    });
    expect(schemas.PolicyViewDto.properties?.tiers).toEqual({
      type: 'array',
      description: expect.any(String),
      items: { $ref: '#/components/schemas/TierViewDto' },
    });
  });

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['empty', ''],
  ])('fails at bootstrap when the token is %s', async (_label, token) => {
    await expect(
      boot(
        RateLimitAdminModule.forRootAsync({
          useFactory: () => ({ token: token as string }),
        }),
      ),
    ).rejects.toThrow(RateLimitConfigError);
  });

  it('rejects a non-string path while the module is declared', () => {
    expect(() =>
      RateLimitAdminModule.forRoot({ token: TOKEN, path: 42 as unknown as string }),
    ).toThrow(/"path" must be a string/);
  });

  describe('routes', () => {
    let service: ReturnType<typeof fakeService>;
    beforeEach(async () => {
      ({ app, service } = await boot(RateLimitAdminModule.forRoot({ token: TOKEN })));
    });
    const http = () => request(app!.getHttpServer());

    it('answer 401 without calling the service when the token is missing or wrong', async () => {
      await http().get('/admin/policies').expect(401).expect('WWW-Authenticate', 'Bearer');
      await http().get('/admin/policies').set('Authorization', 'Bearer nope').expect(401);
      await http().patch('/admin/policies/demo.gcra').send({ limit: 1 }).expect(401);
      expect(service.list).not.toHaveBeenCalled();
      expect(service.update).not.toHaveBeenCalled();
    });

    it('GET policies/:name answers the view, and 404 for an unknown policy', async () => {
      await http().get('/admin/policies/demo.gcra').set(AUTH).expect(200, VIEW);
      const missing = await http().get('/admin/policies/nope').set(AUTH);
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('Unknown rate limit policy "nope"');
    });

    it('PATCH converts window to windowMs and answers 200 with the updated view', async () => {
      await http()
        .patch('/admin/policies/demo.gcra')
        .set(AUTH)
        .send({ limit: 7, window: '1m', mode: 'shadow' })
        .expect(200, VIEW);
      expect(service.update).toHaveBeenCalledWith('demo.gcra', {
        limit: 7,
        windowMs: 60_000,
        mode: 'shadow',
      });
    });

    it('PATCH with bad input answers 400 naming the field and writes nothing', async () => {
      const bad = await http()
        .patch('/admin/policies/demo.gcra')
        .set(AUTH)
        .send({ limit: 0, colour: 'red' });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toEqual(
        expect.arrayContaining([
          'limit must not be less than 1',
          'property colour should not exist',
        ]),
      );
      await http().patch('/admin/policies/demo.gcra').set(AUTH).send({}).expect(400);
      expect(service.update).not.toHaveBeenCalled();
    });

    it('DELETE policies/:name/override clears the override', async () => {
      await http().delete('/admin/policies/demo.gcra/override').set(AUTH).expect(200, VIEW);
      expect(service.clearOverride).toHaveBeenCalledWith('demo.gcra');
    });

    it('GET policies/:name/keys passes cursor and count (default 100)', async () => {
      await http()
        .get('/admin/policies/demo.gcra/keys')
        .set(AUTH)
        .expect(200, { items: [], cursor: null });
      await http().get('/admin/policies/demo.gcra/keys?cursor=17&count=5').set(AUTH).expect(200);
      expect(service.keys.mock.calls).toEqual([
        ['demo.gcra', undefined, 100],
        ['demo.gcra', '17', 5],
      ]);
      const bad = await http().get('/admin/policies/demo.gcra/keys?count=0').set(AUTH);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toEqual(['count must not be less than 1']);
    });

    it('DELETE policies/:name/keys/:identity decodes the identity and answers 204', async () => {
      await http()
        .delete(`/admin/policies/demo.gcra/keys/${encodeURIComponent('ip:1.2.3.4')}`)
        .set(AUTH)
        .expect(204, '');
      await http()
        .delete(`/admin/policies/demo.gcra/keys/${encodeURIComponent('key:a/b c%')}`)
        .set(AUTH)
        .expect(204);
      expect(service.resetKey.mock.calls).toEqual([
        ['demo.gcra', 'ip:1.2.3.4'],
        ['demo.gcra', 'key:a/b c%'],
      ]);
    });
  });
});
