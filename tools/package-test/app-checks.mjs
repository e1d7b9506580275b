// @ts-check
/**
 * What a user of the installed package sees over HTTP on the README's core blocks: `GET /`
 * limited to 3 a minute answers nest new's `Hello World!` three times with the rate-limit
 * headers, then the documented 429 with Retry-After, and again on the fifth; the decision state
 * is in the app's own Redis (not the in-memory fallback).
 */
import { httpGet } from '../support/checks.mjs';
import { run } from '../support/processes.mjs';

export const POLICY = 'AppController.getHello';
const LIMIT = 3;

/** @typedef {ReturnType<typeof import('../support/checks.mjs').createChecks>} Checks */
/** @typedef {Awaited<ReturnType<typeof httpGet>>} Answer */

/** @param {Answer} answer */
const shown = (answer) => ({
  status: answer.status,
  body: answer.text.slice(0, 2000),
  headers: Object.fromEntries(answer.headers),
});

/**
 * @param {Checks} checks
 * @param {{ base: string, redisUrl: string, label: string, cwd: string }} app
 * @returns {Promise<Answer[]>} the two 429s
 */
export async function checkCoreBlock(checks, { base, redisUrl, label, cwd }) {
  for (let remaining = LIMIT - 1; remaining >= 0; remaining--) {
    const answer = await httpGet(`${base}/`);
    checks.ok(
      answer.status === 200 &&
        answer.text === 'Hello World!' &&
        answer.headers.get('ratelimit-limit') === String(LIMIT) &&
        answer.headers.get('ratelimit-remaining') === String(remaining),
      `${label}: GET / is 200 Hello World! with RateLimit-Limit ${LIMIT}, RateLimit-Remaining ${remaining}`,
      () => shown(answer),
    );
  }
  const rejected = [await httpGet(`${base}/`), await httpGet(`${base}/`)];
  rejected.forEach((limited, index) => {
    const body = limited.json ?? {};
    const retryAfter = Number(limited.headers.get('retry-after'));
    checks.ok(
      limited.status === 429 &&
        Object.keys(body).sort().join() === 'message,policy,retryAfter,statusCode' &&
        body.statusCode === 429 &&
        body.message === 'Too Many Requests' &&
        body.policy === POLICY &&
        Number.isInteger(body.retryAfter) &&
        body.retryAfter >= 1 &&
        body.retryAfter <= 60 &&
        retryAfter === body.retryAfter &&
        limited.headers.get('ratelimit-remaining') === '0' &&
        limited.headers.get('ratelimit-reset') !== null,
      `${label}: GET / number ${LIMIT + 1 + index} is README's 429 { statusCode, message, policy, retryAfter }, Retry-After, RateLimit-*`,
      () => shown(limited),
    );
  });

  // The limiter falls back to memory when Redis is unreachable, which would pass the checks
  // above: the policy's key in this app's own Redis shows Redis decided.
  const keys = await run('redis-cli', ['-u', redisUrl, '--scan', '--pattern', '*'], {
    cwd,
    timeoutMs: 10_000,
  });
  checks.ok(keys.includes(POLICY), `${label}: the decision state is in Redis`, () =>
    keys.split('\n').slice(0, 20),
  );
  return rejected;
}
