// @ts-check
/**
 * What a user of the installed package sees over HTTP, on the README's application module:
 * `@RateLimit({ limit: 2, window: '1m' })` admits two requests and answers the third with the
 * documented 429; the decision state is in Redis (not the in-memory fallback); the admin API
 * lists the policy behind its bearer token; the dashboard is served from the package's files.
 */
import { httpGet } from '../support/checks.mjs';
import { run } from '../support/processes.mjs';

const POLICY = 'HelloController.hello';

/**
 * @param {ReturnType<typeof import('../support/checks.mjs').createChecks>} checks
 * @param {{ base: string, token: string, redisUrl: string, label: string, cwd: string }} app
 */
export async function checkApp(checks, { base, token, redisUrl, label, cwd }) {
  const hello = `${base}/hello`;
  for (const remaining of ['1', '0']) {
    const response = await httpGet(hello);
    checks.ok(
      response.status === 200 &&
        response.json?.hello === 'world' &&
        response.headers.get('ratelimit-limit') === '2' &&
        response.headers.get('ratelimit-remaining') === remaining,
      `${label}: GET /hello is 200 with RateLimit-Limit 2, RateLimit-Remaining ${remaining}`,
      () => ({
        status: response.status,
        body: response.text,
        headers: Object.fromEntries(response.headers),
      }),
    );
  }
  const limited = await httpGet(hello);
  const body = limited.json ?? {};
  const retryAfter = Number(limited.headers.get('retry-after'));
  checks.ok(
    limited.status === 429 &&
      body.statusCode === 429 &&
      typeof body.message === 'string' &&
      body.policy === POLICY &&
      Number.isInteger(body.retryAfter) &&
      body.retryAfter >= 1 &&
      body.retryAfter <= 60 &&
      retryAfter === body.retryAfter &&
      limited.headers.get('ratelimit-remaining') === '0' &&
      limited.headers.get('ratelimit-reset') !== null,
    `${label}: the third GET /hello is 429 { statusCode, message, policy, retryAfter } with Retry-After and RateLimit-* headers`,
    () => ({
      status: limited.status,
      body: limited.text,
      headers: Object.fromEntries(limited.headers),
    }),
  );

  // The limiter falls back to memory when Redis is unreachable, which would pass the checks
  // above: the policy's key in this test's own Redis shows Redis decided.
  const keys = await run('redis-cli', ['-u', redisUrl, '--scan', '--pattern', '*'], {
    cwd,
    timeoutMs: 10_000,
  });
  checks.ok(keys.includes(POLICY), `${label}: the decision state is in Redis`, () =>
    keys.split('\n').slice(0, 20),
  );

  const anonymous = await httpGet(`${base}/admin/policies`);
  checks.ok(
    anonymous.status === 401,
    `${label}: GET /admin/policies without the token is 401`,
    () => anonymous.status,
  );
  const policies = await httpGet(`${base}/admin/policies`, { authorization: `Bearer ${token}` });
  const listed = JSON.stringify(policies.json ?? null);
  checks.ok(
    policies.status === 200 && listed.includes(`"${POLICY}"`),
    `${label}: GET /admin/policies with the bearer token is 200 and lists ${POLICY}`,
    () => ({ status: policies.status, body: policies.text.slice(0, 2000) }),
  );

  const page = await httpGet(`${base}/admin/dashboard/`);
  checks.ok(
    page.status === 200 &&
      /^text\/html/.test(page.headers.get('content-type') ?? '') &&
      page.text.includes('rate-limit-api'),
    `${label}: GET /admin/dashboard/ serves the dashboard page (200 text/html)`,
    () => ({
      status: page.status,
      type: page.headers.get('content-type'),
      body: page.text.slice(0, 500),
    }),
  );
  const script = /src="\.?\/?(assets\/[^"]+\.js)"/.exec(page.text)?.[1];
  const asset = script ? await httpGet(`${base}/admin/dashboard/${script}`) : undefined;
  checks.ok(
    asset?.status === 200 && /javascript/.test(asset.headers.get('content-type') ?? ''),
    `${label}: the page's script (${script}) is served from the installed package`,
    () => ({ script, status: asset?.status, type: asset?.headers.get('content-type') }),
  );
}
