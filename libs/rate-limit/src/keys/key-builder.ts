import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { boundedMemo } from '../util/bounded-memo';
import { decodeKeyPart, encodeKeyPart, hashedKeyPartOf } from './encode-key-part';

/**
 * Key scheme `<prefix>:{<identity>}:<policy>:<algo>[:block]`. The identity is the hash tag, so
 * every key of one identity is in one Redis Cluster slot (one script call decides them all) and
 * different identities spread across the cluster. The algorithm is part of the key, so a
 * runtime change of `algo` never meets state of another shape.
 */
export class KeyBuilder {
  /** A busy client's tag is encoded once, not per request. */
  readonly identityTag: (identity: string) => string;

  constructor(readonly prefix: string) {
    this.identityTag = boundedMemo((identity) => this.tagOf(encodeKeyPart(identity)));
  }

  private tagOf(encodedIdentity: string): string {
    return `${this.prefix}:{${encodedIdentity}}:`;
  }

  /** The tag of a key this builder made: what the admin API lists and resets by. */
  tagOfKey(key: string): string {
    return key.slice(0, key.indexOf('}', this.prefix.length + 2) + 2);
  }

  /** Who a tag counts, readable (a hashed long identity as its prefix and hash). */
  listedIdentity(tag: string): string {
    return decodeKeyPart(tag.slice(this.prefix.length + 2, -2));
  }

  /**
   * Every tag an operator may mean by `identity`: its own, and the hashed long value it is the
   * readable form of (as the admin API lists it), if it is one.
   */
  operatorTags(identity: string): string[] {
    const hashed = hashedKeyPartOf(identity);
    const own = this.identityTag(identity);
    return hashed === undefined ? [own] : [own, this.tagOf(hashed)];
  }

  stateKey(tag: string, policy: RateLimitPolicy): string {
    return `${tag}${policy.name}:${policy.algo}`;
  }

  blockKey(stateKey: string): string {
    return `${stateKey}:block`;
  }
}
