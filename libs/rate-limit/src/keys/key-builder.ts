import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { encodeKeyPart } from './encode-key-part';

const MAX_CACHED_IDENTITY_LENGTH = 128;

/**
 * Key scheme `<prefix>:{<identity>}:<policy>:<algo>[:block]`. The identity is the hash tag, so
 * every key of one identity is in one Redis Cluster slot (one script call decides them all) and
 * different identities spread across the cluster. The algorithm is part of the key, so a
 * runtime change of `algo` never meets state of another shape.
 */
export class KeyBuilder {
  /** Recently seen identities' tags: a busy client's key is encoded once, not per request. */
  private readonly tags = new Map<string, string>();

  constructor(
    readonly prefix: string,
    private readonly maxCachedTags = 10_000,
  ) {}

  identityTag(identity: string): string {
    let tag = this.tags.get(identity);
    if (tag === undefined) {
      tag = `${this.prefix}:{${encodeKeyPart(identity)}}:`;
      // Bounded in count (by clearing: cheaper than an LRU, a miss costs one encoding) and in
      // size: client-controlled long identities are not kept.
      if (identity.length > MAX_CACHED_IDENTITY_LENGTH) return tag;
      if (this.tags.size >= this.maxCachedTags) this.tags.clear();
      this.tags.set(identity, tag);
    }
    return tag;
  }

  stateKey(tag: string, policy: RateLimitPolicy): string {
    return `${tag}${policy.name}:${policy.algo}`;
  }

  blockKey(stateKey: string): string {
    return `${stateKey}:block`;
  }
}
