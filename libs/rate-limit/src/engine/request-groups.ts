import { DuplicatePolicyError } from '../errors/duplicate-policy.error';
import type { KeyBuilder } from '../keys/key-builder';
import { RATE_LIMIT_ALGORITHMS } from '../policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { StoreEntry } from '../store/rate-limit-store.interface';
import type { PolicyRequest } from './policy-request';

/** The policies of one identity (one atomic store call), and where each request came from. */
export interface RequestGroup {
  readonly entries: StoreEntry[];
  /** For each entry, the index of its request. */
  readonly indexes: number[];
}

/** The requests grouped by identity, in the order each identity first appears. */
export function groupRequests(
  keys: KeyBuilder,
  requests: readonly PolicyRequest[],
): RequestGroup[] {
  if (requests.length === 1) {
    const { policy, identity, cost } = requests[0];
    return [
      { entries: [storeEntry(keys, policy, keys.identityTag(identity), cost)], indexes: [0] },
    ];
  }
  const byIdentity = new Map<string, RequestGroup>();
  requests.forEach(({ policy, identity, cost }, index) => {
    let group = byIdentity.get(identity);
    if (!group) byIdentity.set(identity, (group = { entries: [], indexes: [] }));
    const entry = storeEntry(keys, policy, keys.identityTag(identity), cost);
    // Both would be checked against the same state, and together exceed the limit.
    if (group.entries.some((e) => e.key === entry.key)) throw new DuplicatePolicyError(policy.name);
    group.entries.push(entry);
    group.indexes.push(index);
  });
  return [...byIdentity.values()];
}

/** The entry of one policy for the identity whose key tag is `tag`. */
export function storeEntry(
  keys: KeyBuilder,
  policy: RateLimitPolicy,
  tag: string,
  cost: number,
): StoreEntry {
  const key = keys.stateKey(tag, policy);
  if (!keys.clientOverridesInUse) return { key, blockKey: keys.blockKey(key), policy, cost };
  const overrideKey = keys.clientOverrideKey(tag, policy.name);
  return { key, overrideKey, blockKey: keys.blockKey(key), policy, cost };
}

/** Every key the identities of these tags may have under a policy, whatever algorithm wrote it. */
export function keysOfTags(
  keys: KeyBuilder,
  policy: RateLimitPolicy,
  tags: readonly string[],
): string[] {
  return tags.flatMap((tag) =>
    RATE_LIMIT_ALGORITHMS.flatMap((algo) => {
      const key = keys.stateKey(tag, { ...policy, algo });
      return [key, keys.blockKey(key)];
    }),
  );
}
