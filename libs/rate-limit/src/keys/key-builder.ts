import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { boundedMemo } from '../util/bounded-memo';
import { encodeKeyPart } from './encode-key-part';

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
    this.identityTag = boundedMemo((identity) => `${prefix}:{${encodeKeyPart(identity)}}:`);
  }

  stateKey(tag: string, policy: RateLimitPolicy): string {
    return `${tag}${policy.name}:${policy.algo}`;
  }

  blockKey(stateKey: string): string {
    return `${stateKey}:block`;
  }
}
