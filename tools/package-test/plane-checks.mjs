// @ts-check
/**
 * The planes a full app mounts from the README's blocks, over HTTP: /health (Terminus, the
 * limiter's Redis), the admin API behind its bearer token, the dashboard served from the
 * installed package, the OpenAPI document with the limited route's 429 and headers
 * (documentRateLimits), and the shedder answering a remembered rejection before routing.
 */
import { httpGet } from '../support/checks.mjs';
import { POLICY } from './app-checks.mjs';

/** @typedef {ReturnType<typeof import('../support/checks.mjs').createChecks>} Checks */

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/** @param {Checks} checks @param {string} base @param {string} label */
export async function checkHealth(checks, base, label) {
  const health = await httpGet(`${base}/health`);
  checks.ok(
    health.status === 200 &&
      health.json?.status === 'ok' &&
      health.json?.info?.redis?.status === 'up' &&
      health.json?.info?.redis?.store === 'redis',
    `${label}: GET /health is 200 with redis up (RateLimitHealthIndicator)`,
    () => ({ status: health.status, body: health.text.slice(0, 1000) }),
  );
}

/** @param {Checks} checks @param {{ base: string, token: string, label: string }} app */
export async function checkAdmin(checks, { base, token, label }) {
  const anonymous = await httpGet(`${base}/admin/policies`);
  checks.ok(
    anonymous.status === 401,
    `${label}: GET /admin/policies without the token is 401`,
    () => anonymous.status,
  );
  const policies = await httpGet(`${base}/admin/policies`, { authorization: `Bearer ${token}` });
  checks.ok(
    policies.status === 200 && JSON.stringify(policies.json ?? null).includes(`"${POLICY}"`),
    `${label}: GET /admin/policies with the bearer token is 200 and lists ${POLICY}`,
    () => ({ status: policies.status, body: policies.text.slice(0, 2000) }),
  );

  // README names /admin/dashboard; a browser may add the slash (the page's base has it).
  const pages = [
    await httpGet(`${base}/admin/dashboard`),
    await httpGet(`${base}/admin/dashboard/`),
  ];
  for (const [index, page] of pages.entries())
    checks.ok(
      page.status === 200 &&
        /^text\/html/.test(page.headers.get('content-type') ?? '') &&
        page.text.includes('rate-limit-api'),
      `${label}: GET /admin/dashboard${index ? '/' : ''} serves the dashboard page (200 text/html)`,
      () => ({
        status: page.status,
        type: page.headers.get('content-type'),
        body: page.text.slice(0, 500),
      }),
    );
  const page = pages[0];
  const script = /src="\.?\/?(assets\/[^"]+\.js)"/.exec(page.text)?.[1];
  const asset = script ? await httpGet(`${base}/admin/dashboard/${script}`) : undefined;
  checks.ok(
    asset?.status === 200 && /javascript/.test(asset.headers.get('content-type') ?? ''),
    `${label}: the page's script (${script}) is served from the installed package`,
    () => ({ script, status: asset?.status, type: asset?.headers.get('content-type') }),
  );
}

/** @param {Checks} checks @param {string} base @param {string} label */
export async function checkOpenApi(checks, base, label) {
  const json = await httpGet(`${base}/docs-json`);
  const document = json.json ?? {};
  const responses = document.paths?.['/']?.get?.responses ?? {};
  const tooMany = responses['429'] ?? {};
  const headersOf = (/** @type {any} */ response) => Object.keys(response?.headers ?? {});
  checks.ok(
    json.status === 200 &&
      tooMany.content?.['application/json']?.schema?.$ref ===
        '#/components/schemas/RateLimitExceeded' &&
      document.components?.schemas?.RateLimitExceeded !== undefined &&
      ['Retry-After', ...RATE_LIMIT_HEADERS].every((name) => headersOf(tooMany).includes(name)) &&
      RATE_LIMIT_HEADERS.every((name) => headersOf(responses['200']).includes(name)),
    `${label}: GET /docs-json documents GET /'s 429 ($ref RateLimitExceeded, Retry-After) and RateLimit-* on 200 and 429`,
    () => ({
      status: json.status,
      responses,
      schemas: Object.keys(document.components?.schemas ?? {}),
    }),
  );
  const ui = await httpGet(`${base}/docs`);
  checks.ok(
    ui.status === 200 && /^text\/html/.test(ui.headers.get('content-type') ?? ''),
    `${label}: GET /docs serves Swagger's UI`,
    () => ({ status: ui.status, type: ui.headers.get('content-type') }),
  );
}

/**
 * The statuses the app's exception filters saw, in order: main.ts logs every one its global
 * filter handles. A 404 is asked for last and awaited in the output: the child writes its lines
 * in order, so once the 404's is read every earlier one is too (counting never races the pipe).
 * @param {string} base
 * @param {{ output: () => string, untilOutput: (pattern: RegExp) => Promise<void> }} app
 */
export async function statusesSeenByFilters(base, { output, untilOutput }) {
  const marker = await httpGet(`${base}/package-test-not-found`);
  if (marker.status !== 404)
    throw new Error(`GET /package-test-not-found answered ${marker.status}`);
  await untilOutput(/package-test filter saw 404/);
  return [...output().matchAll(/package-test filter saw (\d+)/g)].map((match) => Number(match[1]));
}
