import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../../libs/rate-limit/test/support/redis-test-server';
import { within } from '../../libs/rate-limit/test/support/within';
import { ROOT } from '../support/demo-build';
import { startDemoProcess, type DemoProcess } from '../support/demo-process';
import { launchChromium, seriousViolations, shownNumber } from './chromium';

/**
 * The operator dashboard as an operator uses it: Debian's Chromium (headless, playwright-core)
 * against TWO demo processes (`node dist/apps/demo/main.js`) on one redis-server. The page is
 * opened on instance A; traffic and checks go to instance B, so what the page shows and
 * changes is proven across instances. Screenshots for the README go to docs/.
 */
jest.setTimeout(90_000);

const TOKEN = 'browser-admin-token-0123456789abcdefgh';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const POLICY = 'demo.fixed-window';

describe('operator dashboard in Chromium, two demo processes on one Redis', () => {
  let redis: TestRedis;
  let a: DemoProcess;
  let b: DemoProcess;
  let browser: Browser;

  const api = async (demo: DemoProcess, path: string) => {
    const res = await demo.get(path, AUTH);
    expect(res.status).toBe(200);
    return JSON.parse(res.body);
  };
  const hit = async (demo: DemoProcess, ip: string) =>
    (await demo.get('/api/fixed-window', { 'X-Forwarded-For': ip })).status;
  const hits = async (demo: DemoProcess, ip: string, n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push(await hit(demo, ip));
    return statuses;
  };

  /**
   * A fresh browser context (its own sessionStorage) on instance A, signed in with `token`;
   * close it with `done(page)`.
   */
  async function signedIn(token = TOKEN, width = 1280): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${a.url}/admin/dashboard`);
    await page.getByTestId('token-input').fill(token);
    await page.getByTestId('token-input').press('Enter');
    if (token === TOKEN) await page.getByTestId(`policy-row-${POLICY}`).waitFor();
    return page;
  }
  const done = (page: Page) => page.context().close();
  const openPolicy = async (page: Page) => {
    await page.goto(`${a.url}/admin/dashboard/#/policies/${POLICY}`);
    await page.getByTestId('threshold-form').waitFor();
  };

  beforeAll(async () => {
    redis = await startTestRedis();
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix('dash'),
      ADMIN_TOKEN: TOKEN,
      TRUST_PROXY: 'loopback',
      RATE_LIMIT_STATS_FLUSH_MS: '500',
      RATE_LIMIT_POLICY_REFRESH_MS: '500',
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

  it('ships a production bundle within its budget: under 150 KB gzipped, no JSX source info', () => {
    const dir = join(ROOT, 'dist', 'libs', 'rate-limit', 'dashboard', 'ui', 'assets');
    const files = readdirSync(dir).filter((f) => /\.(js|css)$/.test(f));
    const gzipped = files.map((f) => gzipSync(readFileSync(join(dir, f)), { level: 9 }).length);
    const total = gzipped.reduce((a, b) => a + b, 0);
    console.log(
      `dashboard bundle: ${files.map((f, i) => `${f} ${gzipped[i]} B`).join(', ')}; ${total} B gzipped`,
    );
    expect(total).toBeLessThan(150 * 1024);
    for (const f of files.filter((name) => name.endsWith('.js'))) {
      // A development build (NODE_ENV=test in jest's build) tags every element with its source.
      expect(readFileSync(join(dir, f), 'utf8')).not.toContain('columnNumber');
    }
  });

  it('refuses a wrong token, then shows every policy; no serious accessibility violation', async () => {
    const refused = await signedIn('not-the-token-but-long-enough-0123456789');
    await refused.getByTestId('login-error').waitFor({ state: 'visible' });
    expect(await refused.getByTestId('login-error').textContent()).toMatch(/wrong token/i);
    expect(await refused.evaluate('location.href')).not.toContain(TOKEN);
    await done(refused);

    for (let i = 0; i < 4; i++) await hits(b, `198.51.100.${i}`, 7);
    const page = await signedIn();
    const names: string[] = (await api(b, '/admin/policies')).map((p: { name: string }) => p.name);
    for (const name of names) await page.getByTestId(`policy-row-${name}`).waitFor();
    expect(await page.locator('[data-testid^="policy-row-"]').count()).toBe(names.length);
    // The token lives in sessionStorage only: never in the URL or localStorage.
    // (Expressions, not functions: they run in the page, whose globals Node's types lack.)
    expect(await page.evaluate('Object.values(sessionStorage)')).toContain(TOKEN);
    expect(await page.evaluate('JSON.stringify(localStorage) + location.href')).not.toContain(
      TOKEN,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ROOT, 'docs', 'dashboard-overview.png'), fullPage: true });
    await done(page);
  });

  it('works from the keyboard alone: sign in, open a policy, reach every control with Tab', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${a.url}/admin/dashboard`);
    const focused = () => page.evaluate('document.activeElement?.dataset?.testid ?? ""');
    for (let i = 0; i < 10 && (await focused()) !== 'token-input'; i++)
      await page.keyboard.press('Tab');
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await page.getByTestId(`policy-row-${POLICY}`).waitFor();
    const policyLink = page.getByTestId(`policy-row-${POLICY}`).getByRole('link', { name: POLICY });
    for (
      let i = 0;
      i < 60 && !(await policyLink.evaluate((e) => e === e.ownerDocument.activeElement));
      i++
    ) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await page.getByTestId('threshold-form').waitFor();
    // Every enabled control on the page, visible, is reached by Tab (each marked once reached).
    const controls = Number(
      await page.evaluate(
        `[...document.querySelectorAll('a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])')].filter((e) => e.getClientRects().length > 0).length`,
      ),
    );
    for (let i = 0; i < controls + 10; i++) {
      await page.keyboard.press('Tab');
      await page.evaluate(
        'document.activeElement && (document.activeElement.dataset.reached = "1")',
      );
    }
    const missed = await page.evaluate(
      `[...document.querySelectorAll('a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])')].filter((e) => e.getClientRects().length > 0 && !e.dataset.reached).map((e) => e.outerHTML.slice(0, 80))`,
    );
    expect(controls).toBeGreaterThan(15);
    expect(missed).toEqual([]);
    // The scrolling lists are stops of their own, so they scroll from the keyboard everywhere.
    expect(
      await page.evaluate(`[...document.querySelectorAll('.panel-body')].map((e) => e.tabIndex)`),
    ).toEqual([0, 0, 0, 0]);
    await context.close();
  });

  it('fits a phone screen: nothing wider than the viewport', async () => {
    const page = await signedIn(TOKEN, 390);
    const overflow = () => page.evaluate('document.documentElement.scrollWidth - innerWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await openPolicy(page);
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
    await done(page);
  });

  it('moves the chart and the counts with traffic on the other instance, without moving the layout', async () => {
    const page = await signedIn();
    await openPolicy(page);
    await page.getByTestId('policy-allowed').waitFor();
    // Layout shifts from now on (the page has loaded): refreshes must not move the page. Rows
    // re-ranked inside a polled list's fixed-height scroll box (.panel-body) move nothing else.
    await page.evaluate(`(() => {
      window.__shifts = [];
      const outsideLists = (source) => {
        const node = source.node && (source.node.closest ? source.node : source.node.parentElement);
        return node && !node.closest('.panel-body');
      };
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          if (entry.hadRecentInput || !entry.sources.some(outsideLists)) continue;
          window.__shifts.push(entry.value + ' ' + entry.sources
            .map((s) => (s.node && s.node.outerHTML ? s.node.outerHTML.slice(0, 80) : String(s.node)))
            .join(' | '));
        }
      }).observe({ type: 'layout-shift' });
    })()`);
    const before = await shownNumber(page, 'policy-allowed');
    const chartBefore = Number(await page.getByTestId('traffic-chart').getAttribute('data-total'));
    for (let i = 0; i < 6; i++) await hits(b, `203.0.113.${i}`, 8); // 30 allowed, 18 rejected
    await within(15_000, async () => (await shownNumber(page, 'policy-allowed')) >= before + 30);
    await within(15_000, async () => {
      const total = Number(await page.getByTestId('traffic-chart').getAttribute('data-total'));
      return total >= chartBefore + 48;
    });
    expect(await shownNumber(page, 'policy-rejected')).toBeGreaterThanOrEqual(18);
    expect(await page.evaluate('window.__shifts')).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    // The README's picture of a policy under load: clients with state listed too.
    for (let i = 10; i < 14; i++) await hits(b, `203.0.113.${i}`, 7);
    await page.getByTestId('client-row').first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ROOT, 'docs', 'dashboard-policy.png'), fullPage: true });
    await done(page);
  });

  it('shows the API message for an invalid limit and changes nothing; a valid one holds on the other instance', async () => {
    const page = await signedIn();
    await openPolicy(page);
    await page.getByTestId('field-limit').fill('0');
    await page.getByTestId('save-thresholds').click();
    await page.getByTestId('threshold-error').waitFor({ state: 'visible' });
    expect(await page.getByTestId('threshold-error').textContent()).toMatch(/limit must/);
    expect((await api(b, `/admin/policies/${POLICY}`)).limit).toBe(5);

    await page.getByTestId('field-limit').fill('3');
    await page.getByTestId('save-thresholds').click();
    await within(5_000, async () => (await api(a, `/admin/policies/${POLICY}`)).limit === 3);
    await within(2_000, async () => (await api(b, `/admin/policies/${POLICY}`)).limit === 3);
    expect(await hits(b, '192.0.2.77', 5)).toEqual([200, 200, 200, 429, 429]);
    await done(page);
  });

  it('keeps a threshold another operator changed while this one was editing', async () => {
    const page = await signedIn();
    await openPolicy(page);
    await page.getByTestId('field-limit').fill('4');
    const changed = await fetch(`${b.url}/admin/policies/${POLICY}`, {
      method: 'PATCH',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ window: '1h' }),
    });
    expect(changed.status).toBe(200);
    await within(
      15_000,
      async () => (await page.getByTestId('field-window').inputValue()) === '1h',
    );
    expect(await page.getByTestId('field-limit').inputValue()).toBe('4');
    await page.getByTestId('save-thresholds').click();
    await within(5_000, async () => (await api(b, `/admin/policies/${POLICY}`)).limit === 4);
    expect((await api(b, `/admin/policies/${POLICY}`)).windowMs).toBe(3_600_000);
    await done(page);
  });

  it('resets a blocked client, which then passes; the audit log shows the change and the reset', async () => {
    // A window of an hour: only the reset can let this client through.
    const hour = await fetch(`${b.url}/admin/policies/${POLICY}`, {
      method: 'PATCH',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ limit: 4, window: '1h' }),
    });
    expect(hour.status).toBe(200);
    await within(
      2_000,
      async () => (await api(a, `/admin/policies/${POLICY}`)).windowMs === 3_600_000,
    );
    const ip = '192.0.2.99';
    expect(await hits(b, ip, 5)).toEqual([200, 200, 200, 200, 429]);
    const page = await signedIn();
    await openPolicy(page);
    await page.getByTestId('client-search').fill(`ip:${ip}`);
    const row = page.getByTestId('client-row').filter({ hasText: ip });
    await row.waitFor();
    expect(await hit(a, ip)).toBe(429);
    const reset = page.waitForResponse(
      (res) => res.request().method() === 'DELETE' && res.url().includes('/keys/'),
    );
    await row.getByTestId('reset-client').click();
    expect((await reset).status()).toBe(204);
    expect(await hit(a, ip)).toBe(200);
    // Instance B forgets the rejection it remembers when the reset's announcement reaches it.
    await within(5_000, async () => (await hit(b, ip)) === 200);
    const audit = page.getByTestId('audit-row');
    await within(15_000, async () => {
      const text = (await audit.allTextContents()).join('\n');
      return /Client reset/.test(text) && /Thresholds changed/.test(text) && text.includes(ip);
    });
    await done(page);
  });

  it('sets a client override with an expiry from the page, enforced on the other instance, and removes it', async () => {
    const ip = '192.0.2.150';
    const page = await signedIn();
    await openPolicy(page);
    await page.getByTestId('override-identity').fill(`ip:${ip}`);
    await page.getByTestId('override-action').selectOption('deny');
    await page.getByTestId('override-message').fill('Suspended by the browser test');
    await page.getByTestId('override-expires').fill('1h');
    await page.getByTestId('save-override').click();
    const row = page.getByTestId('override-row').filter({ hasText: ip });
    await row.waitFor();
    // Decided in the client's own key by every instance, from the first request.
    const denied = await b.get('/api/fixed-window', { 'X-Forwarded-For': ip });
    expect(denied.status).toBe(429);
    expect(JSON.parse(denied.body).message).toBe('Suspended by the browser test');
    const listed = await api(
      b,
      `/admin/policies/${POLICY}/clients/${encodeURIComponent(`ip:${ip}`)}`,
    );
    expect(listed.expiresAt).not.toBeNull();
    await row.getByTestId('remove-override').click();
    await row.waitFor({ state: 'detached' });
    await within(5_000, async () => (await hit(b, ip)) === 200);
    await done(page);
  });

  it('shows a banner when Redis goes down', async () => {
    const page = await signedIn();
    await page.getByTestId(`policy-row-${POLICY}`).waitFor();
    expect(await page.getByTestId('redis-banner').isVisible()).toBe(false);
    await redis.stop();
    await page.getByTestId('redis-banner').waitFor({ state: 'visible', timeout: 20_000 });
    expect(await page.getByTestId('redis-banner').textContent()).toMatch(/redis/i);
    await done(page);
  });
});
