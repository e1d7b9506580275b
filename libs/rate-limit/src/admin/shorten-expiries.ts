import type { Logger } from '@nestjs/common';
import type { KeyBuilder } from '../keys/key-builder';
import { stateLifetimeMs } from '../policy/rate-limit-algorithm';
import type { EffectiveThresholds } from '../registry/policy-registry';
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
  thresholds: EffectiveThresholds,
): Promise<number> {
  const match = keys.statePattern(thresholds.policy);
  const maxMs = Math.max(1, lifetimeMs(thresholds));
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

/**
 * The longest any client's state of the policy needs to live: the policy's own, or one of its
 * tiers' (their clients share the policy's keys).
 */
function lifetimeMs({ policy, tiers }: EffectiveThresholds): number {
  return Math.max(stateLifetimeMs(policy), ...[...tiers.values()].map(stateLifetimeMs));
}

/** Whether a change of thresholds leaves the state of the same keys needing less time. */
export function needsShortening(before: EffectiveThresholds, after: EffectiveThresholds): boolean {
  return before.policy.algo === after.policy.algo && lifetimeMs(after) < lifetimeMs(before);
}

/**
 * After a change of `name`'s thresholds from `before` to `after`: a shorter window (or faster
 * refill) re-tightens the keys at once, from the instance that made the change; a failure is
 * logged, the change stands.
 */
export async function retighten(
  name: string,
  before: EffectiveThresholds,
  after: EffectiveThresholds,
  {
    store,
    keys,
    hasClientOverrides,
    logger,
  }: {
    store: RateLimitStore;
    keys: KeyBuilder;
    hasClientOverrides: () => Promise<boolean>;
    logger: Logger;
  },
): Promise<void> {
  if (!needsShortening(before, after)) return;
  try {
    // A client's own quota may need its state longer than any tier: those keys are left to
    // each client's next request, which moves its count to the window in force.
    if (await hasClientOverrides()) {
      logger.log(
        `Policy "${name}" has client overrides: its keys are re-tightened at each client's next request`,
      );
      return;
    }
    await shortenExpiries(store, keys, after);
  } catch (error) {
    logger.warn(
      `Policy "${name}" was changed, but its keys could not all be re-tightened ` +
        `(${(error as Error).message}): the others are at each client's next request`,
    );
  }
}
