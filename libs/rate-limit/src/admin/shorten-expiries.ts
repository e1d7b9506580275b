import type { KeyBuilder } from '../keys/key-builder';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { RateLimitStore } from '../store/rate-limit-store.interface';

const PAGE = 1_000;

/**
 * The longest any state of the policy needs to live under its current thresholds: a window for
 * fixed-window and the log, two for sliding-window-counter (the previous window still weighs),
 * and the time to refill or drain a whole burst for the buckets and GCRA.
 */
export function longestStateMs(policy: RateLimitPolicy): number {
  switch (policy.algo) {
    case 'fixed-window':
    case 'sliding-window':
      return policy.windowMs;
    case 'sliding-window-counter':
      return 2 * policy.windowMs;
    default:
      return Math.ceil((policy.windowMs * Math.max(policy.burst, policy.limit)) / policy.limit);
  }
}

/**
 * After a window was shortened: no state key of the policy lives longer than the new thresholds
 * need, so a client that sends nothing is still freed within a new window (its count moves with
 * it when it comes back earlier, see the algorithms). Block keys keep their penalty. Walks the
 * keys a SCAN page at a time; answers how many keys it looked at.
 */
export async function shortenExpiries(
  store: RateLimitStore,
  keys: KeyBuilder,
  policy: RateLimitPolicy,
): Promise<number> {
  const match = keys.statePattern(policy);
  const maxMs = Math.max(1, longestStateMs(policy));
  let cursor: string | null = null;
  let seen = 0;
  do {
    const page = await store.scan(match, cursor, PAGE);
    if (page.keys.length > 0) await store.shortenExpiries(page.keys, maxMs);
    seen += page.keys.length;
    cursor = page.cursor;
  } while (cursor !== null);
  return seen;
}

/** Whether a change of thresholds leaves the state of the same keys needing less time. */
export function needsShortening(before: RateLimitPolicy, after: RateLimitPolicy): boolean {
  return before.algo === after.algo && longestStateMs(after) < longestStateMs(before);
}
