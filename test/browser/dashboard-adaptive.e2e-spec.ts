import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../../libs/rate-limit/test/support/redis-test-server';
import { within } from '../../libs/rate-limit/test/support/within';
import { ROOT } from '../support/demo-build';
import { startDemoProcess, type DemoProcess } from '../support/demo-process';
import { launchChromium, seriousViolations } from './chromium';

/**
 * The dashboard's adaptive protection page in Chromium, against TWO demo processes with
 * RATE_LIMIT_ADAPTIVE=enforce on one redis-server: every tier at its configured thresholds while
 * idle, both instances' heartbeat loads, and the fleet loop's freeze shown and lifted from the
 * page (checked through the other instance's API). A screenshot for the docs.
 */
jest.setTimeout(60_000);

const TOKEN = 'browser-admin-token-0123456789abcdefgh';
const AUTH = { Authorization: `Bearer ${TOKEN}` };

describe('dashboard: adaptive protection', () => {
  let redis: TestRedis;
  let a: DemoProcess;
  let b: DemoProcess;
  let browser: Browser;

  const adaptiveOn = async (demo: DemoProcess) => {
    const res = await demo.get('/admin/adaptive', AUTH);
    expect(res.status).toBe(200);
    return JSON.parse(res.body) as { frozenUntil: number | null };
  };

  beforeAll(async () => {
    redis = await startTestRedis();
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix('dash-adaptive'),
      ADMIN_TOKEN: TOKEN,
      RATE_LIMIT_ADAPTIVE: 'enforce',
    };
    [a, b, browser] = await Promise.all([
      startDemoProcess(env),
      startDemoProcess(env),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.close();
  });

  it('shows tiers and instances, and freezes and unfreezes the fleet loop', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page: Page = await context.newPage();
    await page.goto(`${a.url}/admin/dashboard`);
    await page.getByTestId('token-input').fill(TOKEN);
    await page.getByTestId('token-input').press('Enter');
    await page.getByRole('link', { name: 'Adaptive' }).click();
    await page.getByTestId('adaptive-mode').waitFor();
    expect(await page.getByTestId('adaptive-mode').textContent()).toBe('enforce');
    // free, pro and enterprise, all at their configured thresholds while nothing is loaded.
    const tiers = page.getByTestId('adaptive-tier-row');
    await tiers.nth(2).waitFor();
    expect(await tiers.allTextContents()).toEqual(['free100 %', 'pro100 %', 'enterprise100 %']);
    // Both instances' heartbeats (one a second; the page polls every 2 s).
    await page.getByTestId('adaptive-instance-row').nth(1).waitFor({ timeout: 10_000 });

    await page.getByRole('button', { name: /^Freeze/ }).click();
    await page.getByTestId('adaptive-frozen').waitFor();
    // The other instance reads the freeze at its next heartbeat (one a second).
    await within(3_000, async () => (await adaptiveOn(b)).frozenUntil !== null);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ROOT, 'docs', 'dashboard-adaptive.png'), fullPage: true });

    await page.getByRole('button', { name: 'Unfreeze' }).click();
    await page.getByTestId('adaptive-frozen').waitFor({ state: 'detached' });
    await context.close();
  });
});
