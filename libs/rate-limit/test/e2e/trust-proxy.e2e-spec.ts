/**
 * Who the client is, behind a real proxy hop (SPEC section 11): only the proxies `trustProxy`
 * names are believed, and text that is no address never becomes an identity.
 */
import type { INestApplication } from '@nestjs/common';
import { request } from 'node:http';
import type { TrustProxy } from '@app/rate-limit';
import { untilReady } from '../support/redis-readiness';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { windowWithoutBoundary } from '../support/window-headroom';
import {
  createFixtureApp,
  E2E_PLATFORM,
  type FixtureApp,
  PATIENT_TIMEOUT_MS,
} from './fixtures/fixture-app';
import { algorithmsController } from './fixtures/limited-controller';
import { startReverseProxy, type ReverseProxy } from './fixtures/reverse-proxy';

/** /api/<algo>: 5 per client, and no window ends during a test wherever the clock is. */
const ROUTES = algorithmsController('api', { limit: 5, window: windowWithoutBoundary() });

/** One GET from `localAddress` (a loopback address of its own: one client). */
function get(
  url: string,
  localAddress: string,
  forwardedFor?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {};
    const req = request(url, { localAddress, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('client addresses through proxies', () => {
  let redis: TestRedis;
  const apps: INestApplication[] = [];
  let proxy: ReverseProxy | undefined;

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    proxy?.close();
    await Promise.all(apps.map((app) => app.close()));
    await redis.close();
  });

  /** A listening fixture app trusting `trustProxy`; resolves with its URL. */
  async function serve(trustProxy: TrustProxy, fixture: FixtureApp = {}): Promise<string> {
    const app = await createFixtureApp({
      ...fixture,
      limiter: {
        redis: redis.url,
        keyPrefix: uniquePrefix('proxy'),
        commandTimeoutMs: PATIENT_TIMEOUT_MS,
        trustProxy,
      },
      controllers: [ROUTES],
    });
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    await untilReady(app);
    return app.getUrl().then((url) => url.replace('[::1]', '127.0.0.1'));
  }

  it('trustProxy true: X-Forwarded-For entries that are no address fall back to the socket', async () => {
    const url = await serve(true);
    const statuses: number[] = [];
    for (let n = 0; n < 12; n++) {
      statuses.push(
        (await get(`${url}/api/fixed-window`, '127.31.0.1', `not-an-ip-${n}, 127.0.0.1`)).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, ...Array<number>(7).fill(429)]);
  });

  it('one trusted hop: the address the proxy saw is the client, whatever the client forges', async () => {
    const url = await serve(1);
    proxy = await startReverseProxy(url);
    const statuses: number[] = [];
    for (let n = 0; n < 8; n++) {
      const forged = `198.51.100.${n}, 203.0.113.${n}`;
      statuses.push((await get(`${proxy.url}/api/gcra`, '127.32.0.1', forged)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // Another client behind the same proxy has its own budget.
    expect((await get(`${proxy.url}/api/gcra`, '127.32.0.2')).status).toBe(200);
  });

  it(`trustProxy off, ${E2E_PLATFORM} itself trusting every hop: X-Forwarded-For is still ignored`, async () => {
    // The limiter reads the raw socket and header by its own trustProxy, never the framework's
    // req.ip (Express `trust proxy`, Fastify `trustProxy`), which here would believe anything.
    const url = await serve(false, { platformTrustsProxies: true });
    const statuses: number[] = [];
    for (let n = 0; n < 7; n++) {
      statuses.push((await get(`${url}/api/token-bucket`, '127.34.0.1', `198.51.100.${n}`)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('loopback trusted: the proxy on 127.0.0.1 is believed, so clients are told apart', async () => {
    const url = await serve('loopback');
    const viaProxy = await startReverseProxy(url);
    try {
      for (const client of ['127.33.0.1', '127.33.0.2']) {
        const statuses: number[] = [];
        for (let n = 0; n < 6; n++)
          statuses.push((await get(`${viaProxy.url}/api/sliding-window`, client)).status);
        expect([client, statuses]).toEqual([client, [200, 200, 200, 200, 200, 429]]);
      }
    } finally {
      viaProxy.close();
    }
  });
});
