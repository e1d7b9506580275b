/**
 * The operator dashboard as the demo serves it (on the suite's platform: Express, or Fastify in
 * the e2e-fastify project): the page with its base path, CSP and no caching; built files gzipped
 * when the client takes it and cached for good; nothing else. The files are a small build of
 * our own, loaded by the library's own loader, so the test does not need `npm run build`.
 */
import type { INestApplication } from '@nestjs/common';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { loadDashboardAssets } from '../libs/rate-limit/src/admin/dashboard/dashboard-assets';
import { DASHBOARD_ASSETS } from '../libs/rate-limit/src/admin/dashboard/dashboard.controller';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../libs/rate-limit/test/support/redis-test-server';
import { createDemoApp, DEMO_PLATFORM } from './support/create-demo-app';

const INDEX =
  '<!doctype html><html lang="en"><head><meta name="rate-limit-api" content="">' +
  '<script type="module" src="./assets/index-3f2a.js"></script></head><body></body></html>';
const SCRIPT = 'export const panel = "requests per policy";\n'.repeat(100);
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'";
/** Sent with every file of the dashboard. */
const EVERY_FILE = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  vary: 'Accept-Encoding',
};

describe(`the dashboard served by the demo (${DEMO_PLATFORM})`, () => {
  let redis: TestRedis;
  let app: INestApplication;
  let built: string;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    built = mkdtempSync(join(tmpdir(), 'dashboard-build-'));
    mkdirSync(join(built, 'assets'));
    writeFileSync(join(built, 'index.html'), INDEX);
    writeFileSync(join(built, 'assets', 'index-3f2a.js'), SCRIPT);
    writeFileSync(join(built, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    redis = await startTestRedis();
    app = await createDemoApp(
      { REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: uniquePrefix('dashboard') },
      { providers: [[DASHBOARD_ASSETS, loadDashboardAssets([built])]] },
    );
  });
  afterAll(async () => {
    await app?.close();
    await redis?.close();
    rmSync(built, { recursive: true, force: true });
  });

  it.each(['/admin/dashboard', '/admin/dashboard/'])(
    'GET %s: the page, with its base and API path, never cached',
    async (path) => {
      const page = await http().get(path).set('Accept-Encoding', 'gzip').expect(200);
      expect(page.headers).toMatchObject({
        ...EVERY_FILE,
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      // Made per request (its base path): sent as it is, never a stale gzip of the template.
      expect(page.headers['content-encoding']).toBeUndefined();
      expect(page.headers['content-length']).toBe(String(Buffer.byteLength(page.text)));
      expect(page.text).toContain('<head><base href="/admin/dashboard/">');
      expect(page.text).toContain('<meta name="rate-limit-api" content="/admin">');
      // Public and not rate limited: no limiter headers.
      expect(page.headers['ratelimit-limit']).toBeUndefined();
    },
  );

  it('a built file: gzipped when the client takes it, cached for good', async () => {
    const path = '/admin/dashboard/assets/index-3f2a.js';
    const immutable = {
      ...EVERY_FILE,
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=31536000, immutable',
    };
    const gzipped = await http().get(path).set('Accept-Encoding', 'br, gzip;q=0.8').expect(200);
    expect(gzipped.headers).toMatchObject({ ...immutable, 'content-encoding': 'gzip' });
    expect(Number(gzipped.headers['content-length'])).toBeLessThan(SCRIPT.length / 4);
    expect(gzipped.text).toBe(SCRIPT); // supertest inflates it
    const plain = await http().get(path).set('Accept-Encoding', 'gzip;q=0, *').expect(200);
    expect(plain.headers).toMatchObject({ ...immutable, 'content-length': String(SCRIPT.length) });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toBe(SCRIPT);
    const head = await http().head(path).set('Accept-Encoding', 'gzip').expect(200);
    expect(head.headers).toMatchObject({
      ...immutable,
      'content-encoding': 'gzip',
      'content-length': gzipped.headers['content-length'],
    });
    expect(head.text).toBeUndefined();
  });

  it('a top-level file: its type, not cached (its name has no content hash)', async () => {
    const icon = await http().get('/admin/dashboard/favicon.svg').expect(200);
    expect(icon.headers).toMatchObject({
      ...EVERY_FILE,
      'content-type': 'image/svg+xml',
      'cache-control': 'no-store',
    });
  });

  it.each([
    '/admin/dashboard/assets/missing.js',
    '/admin/dashboard/index.html',
    '/admin/dashboard/assets/..%2F..%2F..%2Fpackage.json',
    '/admin/dashboard/..%2Fpackage.json',
  ])('GET %s: 404, nothing read from disk', async (path) => {
    const res = await http().get(path).expect(404);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect(res.text).not.toContain('"name"'); // no package.json
  });
});
