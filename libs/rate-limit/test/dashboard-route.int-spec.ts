import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { RateLimitConfigError } from '../src/errors/rate-limit-config.error';
import { ClientOverridesAdmin } from '../src/admin/client-overrides-admin';
import { FailedTokenLimiter } from '../src/admin/failed-token-limiter';
import { PolicyKeys } from '../src/admin/policy-keys';
import { RateLimitAdminActivity } from '../src/admin/rate-limit-admin-activity.service';
import { RateLimitAdminModule } from '../src/admin/rate-limit-admin.module';
import { RateLimitAdminService } from '../src/admin/rate-limit-admin.service';
import type { DashboardAsset } from '../src/admin/dashboard/dashboard-assets';
import { DASHBOARD_ASSETS } from '../src/admin/dashboard/dashboard.controller';

const TOKEN = 'unit-admin-token-0123456789abcdef';
const INDEX =
  '<!doctype html><html lang="en"><head><meta name="rate-limit-api" content=""></head>' +
  '<body><script type="module" src="./assets/app-1.js"></script></body></html>';
const JS = Buffer.from('export const x = 1;'.repeat(200));

const asset = (type: string, body: Buffer, immutable: boolean): DashboardAsset => ({
  type,
  body,
  gzipped: gzipSync(body),
  immutable,
});

async function boot(
  imported: ReturnType<typeof RateLimitAdminModule.forRoot>,
  assets: Map<string, DashboardAsset> | undefined,
): Promise<INestApplication> {
  // The core on the memory store: the admin plane's own providers join it.
  let builder = Test.createTestingModule({ imports: [RateLimitModule.forRoot({}), imported] });
  for (const provider of [RateLimitAdminService, PolicyKeys, ClientOverridesAdmin]) {
    builder = builder.overrideProvider(provider).useValue({});
  }
  const moduleRef = await builder
    .overrideProvider(RateLimitAdminActivity)
    .useValue({})
    .overrideProvider(FailedTokenLimiter)
    .useValue({ failed: async () => undefined })
    .overrideProvider(DASHBOARD_ASSETS)
    .useValue(assets)
    .compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

const BUILT = new Map([
  ['index.html', asset('text/html; charset=utf-8', Buffer.from(INDEX), false)],
  ['assets/app-1.js', asset('text/javascript; charset=utf-8', JS, true)],
]);

describe('the dashboard route', () => {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('serves the page at <admin>/dashboard, public, with its base, API path and CSP', async () => {
    app = await boot(RateLimitAdminModule.forRoot({ token: TOKEN }), BUILT);
    for (const path of ['/admin/dashboard', '/admin/dashboard/']) {
      const page = await request(app.getHttpServer()).get(path).expect(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).toContain('<base href="/admin/dashboard/">');
      expect(page.text).toContain('<meta name="rate-limit-api" content="/admin">');
    }
  });

  it('serves built files gzipped when asked, cached for good; nothing else', async () => {
    app = await boot(RateLimitAdminModule.forRoot({ token: TOKEN }), BUILT);
    const server = app.getHttpServer();
    const js = await request(server)
      .get('/admin/dashboard/assets/app-1.js')
      .set('Accept-Encoding', 'gzip')
      .expect(200);
    expect(js.headers['content-encoding']).toBe('gzip');
    expect(js.headers['cache-control']).toContain('immutable');
    expect(js.text).toBe(JS.toString());
    const plain = await request(server)
      .get('/admin/dashboard/assets/app-1.js')
      .set('Accept-Encoding', 'identity')
      .expect(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    await request(server).get('/admin/dashboard/assets/missing.js').expect(404);
    await request(server).get('/admin/dashboard/assets/..%2F..%2Fpackage.json').expect(404);
    await request(server).get('/admin/dashboard/index.html').expect(404);
  });

  it('mounts under the configured paths, or not at all', async () => {
    app = await boot(
      RateLimitAdminModule.forRoot({ token: TOKEN, path: 'ops', dashboard: { path: 'ui' } }),
      BUILT,
    );
    const page = await request(app.getHttpServer()).get('/ops/ui').expect(200);
    expect(page.text).toContain('<meta name="rate-limit-api" content="/ops">');
    await app.close();
    app = await boot(RateLimitAdminModule.forRoot({ token: TOKEN, dashboard: false }), BUILT);
    await request(app.getHttpServer()).get('/admin/dashboard').expect(404);
  });

  it('answers 503 with the reason when the page was not built', async () => {
    app = await boot(RateLimitAdminModule.forRoot({ token: TOKEN }), undefined);
    const res = await request(app.getHttpServer()).get('/admin/dashboard').expect(503);
    expect(res.body.message).toContain('npm run build');
  });

  it('marks every answer nosniff: the page, its files, the 404 that names a file, the 503', async () => {
    app = await boot(RateLimitAdminModule.forRoot({ token: TOKEN }), BUILT);
    const server = app.getHttpServer();
    const missing = await request(server).get(
      '/admin/dashboard/%3Cscript%3Ealert(1)%3C%2Fscript%3E',
    );
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain('<script>');
    const answers = [
      missing,
      await request(server).get('/admin/dashboard/'),
      await request(server).get('/admin/dashboard/assets/app-1.js'),
      await request(server).get('/admin/dashboard/assets/missing.js'),
    ];
    await app.close();
    app = await boot(RateLimitAdminModule.forRoot({ token: TOKEN }), undefined);
    answers.push(await request(app.getHttpServer()).get('/admin/dashboard'));
    expect(answers.map((res) => [res.status, res.headers['x-content-type-options']])).toEqual([
      [404, 'nosniff'],
      [200, 'nosniff'],
      [200, 'nosniff'],
      [404, 'nosniff'],
      [503, 'nosniff'],
    ]);
  });

  it("marks the admin API's errors nosniff, before the token is checked", async () => {
    app = await boot(RateLimitAdminModule.forRoot({ token: TOKEN }), BUILT);
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const server = app.getHttpServer();
    const answers = [
      await request(server).get('/admin/policies'),
      await request(server).get('/admin/policies/p/keys?count=0').set(auth),
      await request(server)
        .patch('/admin/policies/p')
        .set(auth)
        .send({ limit: [1] }),
    ];
    expect(answers.map((res) => [res.status, res.headers['x-content-type-options']])).toEqual([
      [401, 'nosniff'],
      [400, 'nosniff'],
      [400, 'nosniff'],
    ]);
  });

  it.each([{ path: '../x' }, { path: '' }, { path: 3 }, 'yes', true])(
    'refuses dashboard option %p while the module is declared',
    (dashboard) => {
      expect(() => RateLimitAdminModule.forRoot({ token: TOKEN, dashboard } as never)).toThrow(
        RateLimitConfigError,
      );
    },
  );
});
