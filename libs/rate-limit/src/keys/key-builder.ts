import type { RateLimitAlgorithm } from '../policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { operatorIdentity } from '../identity/operator-identity';
import { boundedMemo } from '../util/bounded-memo';
import { decodeKeyPart, encodeKeyPart, hashedKeyPartOf } from './encode-key-part';
import {
  fingerprintPartOf,
  isFingerprintPart,
  listedFingerprint,
  type IdentityFingerprint,
} from './identity-fingerprint';

const BLOCK_SUFFIX = ':block';
const CLIENT_SUFFIX = ':client';

/**
 * The algorithm's part of a state key. Short because every client pays for its key's length in
 * Redis memory (measured: `fixed-window` spelled out made a typical key 40 characters, a 48-byte
 * allocation, where `fw` makes it 30, a 32-byte one) and on every call; still readable with
 * redis-cli. No code is another's prefix but `sw` of `swc`, which stateSuffix() tells apart.
 */
export const ALGORITHM_KEY_CODE: Readonly<Record<RateLimitAlgorithm, string>> = {
  'fixed-window': 'fw',
  'sliding-window': 'sw',
  'sliding-window-counter': 'swc',
  'token-bucket': 'tb',
  'leaky-bucket': 'lb',
  gcra: 'gcra',
};

/**
 * Key scheme `<prefix>:{<identity>}:<policy>:<algo code>[:block]` (codes: ALGORITHM_KEY_CODE),
 * and `<prefix>:{<identity>}:<policy>:client` for a client override. The identity is the hash tag, so
 * every key of one identity is in one Redis Cluster slot (one script call decides them all) and
 * different identities spread across the cluster. The algorithm is part of the key, so a
 * runtime change of `algo` never meets state of another shape.
 */
export class KeyBuilder {
  /** A busy client's tag is encoded (and fingerprinted) once, not per request. */
  identityTag!: (identity: string) => string;
  /**
   * Whether any client override exists (or may: set once one is seen, never unset while the
   * process runs). Until then a decision reads no override key: the feature costs nothing
   * until it is used. See ClientOverrides for how every instance learns of the first one.
   */
  clientOverridesInUse = false;
  private fingerprint?: IdentityFingerprint;
  /** Whether `ip:` identities are keyed by their fingerprint (identityHashing.ips). */
  private addressesHashed = false;

  constructor(readonly prefix: string) {
    this.useFingerprint(undefined);
  }

  /**
   * From now on, identities in its scope are keyed by their fingerprint (see
   * identity-fingerprint.ts); undefined keys every identity in clear.
   */
  useFingerprint(fingerprint: IdentityFingerprint | undefined): void {
    this.fingerprint = fingerprint;
    this.addressesHashed = fingerprint?.covers('ip:') ?? false;
    // A new memo: tags made with another secret must not be served any more.
    this.identityTag = boundedMemo((identity) => this.tagOf(this.keyPartOf(identity)));
  }

  private keyPartOf(identity: string): string {
    return this.fingerprint?.keyPart(identity) ?? encodeKeyPart(identity);
  }

  private tagOf(encodedIdentity: string): string {
    return `${this.prefix}:{${encodedIdentity}}:`;
  }

  /** The tag of a key this builder made: what the admin API lists and resets by. */
  tagOfKey(key: string): string {
    return key.slice(0, key.indexOf('}', this.prefix.length + 2) + 2);
  }

  /**
   * Who a tag counts, readable: a hashed long identity as its prefix and hash, a fingerprinted
   * one as its kind, hint and fingerprint.
   */
  listedIdentity(tag: string): string {
    const part = tag.slice(this.prefix.length + 2, -2);
    return isFingerprintPart(part) ? listedFingerprint(part, decodeKeyPart) : decodeKeyPart(part);
  }

  /**
   * Every tag an operator may mean by `identity`: its own, and the key it is the listed form of
   * (a hashed long value, or a fingerprint), if it is one. An `ip:` identity is first brought to
   * the limiter's form (operatorIdentity), or refused with InvalidIdentityError.
   */
  operatorTags(identity: string): string[] {
    const meant = operatorIdentity(identity, this.addressesHashed);
    const listed = hashedKeyPartOf(meant) ?? fingerprintPartOf(meant);
    const own = this.identityTag(meant);
    return listed === undefined ? [own] : [own, this.tagOf(listed)];
  }

  /** The hash holding the policy's runtime override (`redis-cli HSET` writes it too). */
  policyKey(name: string): string {
    return `${this.prefix}:policy:${name}`;
  }

  stateKey(tag: string, policy: RateLimitPolicy): string {
    return `${tag}${policy.name}:${ALGORITHM_KEY_CODE[policy.algo]}`;
  }

  /** What every state key of the policy (under its current algorithm) ends with. */
  stateSuffix(policy: RateLimitPolicy): string {
    return `}:${policy.name}:${ALGORITHM_KEY_CODE[policy.algo]}`;
  }

  /** A SCAN MATCH pattern for every state key of the policy. */
  statePattern(policy: RateLimitPolicy): string {
    return `${this.prefix}:{*${this.stateSuffix(policy)}`;
  }

  /**
   * A SCAN MATCH pattern for the admin listing: every state and block key of the policy. It also
   * matches an algorithm whose code starts with this one's (`swc` for `sw`), which stateSuffix()
   * tells apart.
   */
  listingPattern(policy: RateLimitPolicy): string {
    return `${this.statePattern(policy)}*`;
  }

  /**
   * Where the client override of the identity of `tag` under the policy is: a string the decide
   * script reads in the same call (same hash tag), which expires by itself.
   */
  clientOverrideKey(tag: string, policyName: string): string {
    return `${tag}${policyName}${CLIENT_SUFFIX}`;
  }

  /**
   * The one tag an operator means by `identity` for a write: the key it is the listed form of,
   * if it is one, else its own.
   */
  operatorTag(identity: string): string {
    const tags = this.operatorTags(identity);
    return tags[tags.length - 1];
  }

  blockKey(stateKey: string): string {
    return `${stateKey}${BLOCK_SUFFIX}`;
  }

  /** The state key a block key belongs to. */
  stateKeyOfBlock(blockKey: string): string {
    return blockKey.slice(0, -BLOCK_SUFFIX.length);
  }
}
