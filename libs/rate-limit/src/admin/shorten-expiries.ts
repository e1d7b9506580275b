import type { KeyBuilder } from '../keys/key-builder';
import { stateLifetimeMs } from '../policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { RateLimitStore } from '../store/rate-limit-store.interface';

const PAGE = 1_000;

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
  const maxMs = Math.max(1, stateLifetimeMs(policy));
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
  return before.algo === after.algo && stateLifetimeMs(after) < stateLifetimeMs(before);
}
