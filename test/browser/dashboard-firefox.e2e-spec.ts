import type { Browser, Page } from 'puppeteer-core';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../../libs/rate-limit/test/support/redis-test-server';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';
import { within } from '../../libs/rate-limit/test/support/within';
import { startDemoProcess, type DemoProcess } from '../support/demo-process';
import { byTestId, launchFirefox, textOf } from './firefox';

/**
 * The operator dashboard in Firefox (Debian's firefox-esr, headless, over WebDriver BiDi with
 * puppeteer-core), as SPEC section 12 promises it besides Chromium: two demo processes on one
 * redis-server, the page on instance A, the checks on instance B. What an operator does most:
 * sign in (a wrong token refused), see every policy, change a threshold (an invalid one refused
 * with the API's message), and the other instance enforcing the change.
 */
jest.setTimeout(90_000);

const TOKEN = 'browser-admin-token-0123456789abcdefgh';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const POLICY = 'demo.fixed-window';

describe('operator dashboard in Firefox, two demo processes on one Redis', () => {
  let redis: TestRedis;
  let a: DemoProcess;
  let b: DemoProcess;
  let browser: Browser;

  const api = async (demo: DemoProcess, path: string) => {
    const res = await demo.get(path, AUTH);
    expect(res.status).toBe(200);
    return JSON.parse(res.body);
  };
  const hits = async (demo: DemoProcess, ip: string, n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) {
      statuses.push((await demo.get('/api/fixed-window', { 'X-Forwarded-For': ip })).status);
    }
    return statuses;
  };

  /** A page of its own (a fresh browser context: its own sessionStorage) signed in with `token`. */
  async function signedIn(token: string): Promise<Page> {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${a.url}/admin/dashboard`);
    await page.locator(byTestId('token-input')).fill(token);
    await page.keyboard.press('Enter');
    return page;
  }
  const done = (page: Page) => page.browserContext().close();

  beforeAll(async () => {
    redis = await startTestRedis();
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix('dash-firefox'),
      ADMIN_TOKEN: TOKEN,
      TRUST_PROXY: 'loopback',
      RATE_LIMIT_POLICY_REFRESH_MS: '500',
    };
    [a, b, browser] = await Promise.all([
      startDemoProcess(env),
      startDemoProcess(env),
      launchFirefox(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.close();
  });

  it('refuses a wrong token, then lists every policy', async () => {
    const refused = await signedIn('not-the-token-but-long-enough-0123456789');
    await refused.waitForSelector(byTestId('login-error'), { visible: true });
    expect(await textOf(refused, 'login-error')).toMatch(/wrong token/i);
    await done(refused);

    const page = await signedIn(TOKEN);
    const names: string[] = (await api(b, '/admin/policies')).map((p: { name: string }) => p.name);
    for (const name of names) await page.waitForSelector(byTestId(`policy-row-${name}`));
    expect(await page.$$eval('[data-testid^="policy-row-"]', (rows) => rows.length)).toBe(
      names.length,
    );
    expect(await browser.version()).toMatch(/firefox/i);
    await done(page);
  });

  it('shows the API message for an invalid limit; a valid one holds on the other instance', async () => {
    // A window without a boundary within the hour: the burst below lands in one window.
    const windowMs = windowWithoutBoundary();
    const patched = await fetch(`${b.url}/admin/policies/${POLICY}`, {
      method: 'PATCH',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ windowMs }),
    });
    expect(patched.status).toBe(200);
    await within(
      2_000,
      async () => (await api(a, `/admin/policies/${POLICY}`)).windowMs === windowMs,
    );
    const page = await signedIn(TOKEN);
    await page.waitForSelector(byTestId(`policy-row-${POLICY}`));
    await page.goto(`${a.url}/admin/dashboard/#/policies/${POLICY}`);
    await page.waitForSelector(byTestId('threshold-form'));
    await page.locator(byTestId('field-limit')).fill('0');
    await page.locator(byTestId('save-thresholds')).click();
    await page.waitForSelector(byTestId('threshold-error'), { visible: true });
    expect(await textOf(page, 'threshold-error')).toMatch(/limit must/);
    expect((await api(b, `/admin/policies/${POLICY}`)).limit).toBe(5);

    await page.locator(byTestId('field-limit')).fill('3');
    await page.locator(byTestId('save-thresholds')).click();
    await within(5_000, async () => (await api(a, `/admin/policies/${POLICY}`)).limit === 3);
    await within(2_000, async () => (await api(b, `/admin/policies/${POLICY}`)).limit === 3);
    expect(await hits(b, '192.0.2.78', 5)).toEqual([200, 200, 200, 429, 429]);
    await done(page);
  });
});
