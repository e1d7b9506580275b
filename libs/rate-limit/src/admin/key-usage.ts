import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import type { KeyBuilder } from '../keys/key-builder';
import { capacityOf } from '../policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { RateLimitStore } from '../store/rate-limit-store.interface';
import type { KeyUsage } from './policy-view.interface';

/**
 * The tags a page of keys lists, each once: the identity of a state key, and of a block key
 * whose state key is gone (while both exist, the state key lists it, on whichever page).
 */
export async function listedTags(
  store: RateLimitStore,
  builder: KeyBuilder,
  keys: readonly string[],
  policy: RateLimitPolicy,
): Promise<string[]> {
  const stateSuffix = builder.stateSuffix(policy);
  const blockSuffix = builder.blockKey(stateSuffix);
  const tagOf = (key: string) => builder.tagOfKey(key);
  const stateTags = keys.filter((key) => key.endsWith(stateSuffix)).map(tagOf);
  const withState = new Set(stateTags);
  const blockKeys = keys.filter((key) => key.endsWith(blockSuffix) && !withState.has(tagOf(key)));
  const stateExists = await store.existing(blockKeys.map((key) => builder.stateKeyOfBlock(key)));
  const blockedOnly = blockKeys.filter((_, i) => !stateExists[i]).map(tagOf);
  return [...new Set([...stateTags, ...blockedOnly])];
}

/** What the listing shows per tag; a key Redis could not read (another type) is left out. */
export function keyUsages(
  builder: KeyBuilder,
  policy: RateLimitPolicy,
  tags: readonly string[],
  decisions: readonly (RateLimitDecision | undefined)[],
): KeyUsage[] {
  const capacity = capacityOf(policy);
  return decisions.flatMap((d, i) =>
    d
      ? [
          {
            identity: builder.listedIdentity(tags[i]),
            // A client's quota is its own capacity (the decision's limit).
            used: Math.max(0, (d.clientOverride === 'quota' ? d.limit : capacity) - d.remaining),
            remaining: d.remaining,
            resetMs: d.resetMs,
            blockedMs: d.reason === 'blocked' ? d.retryAfterMs : 0,
          },
        ]
      : [],
  );
}
