import { createHmac, randomBytes } from 'node:crypto';
import { encodeKeyPart } from './encode-key-part';

/** Which identities are keyed by their fingerprint rather than in clear. */
export interface FingerprintScope {
  /** `ip:` identities too (off by default: operators need to read them). */
  readonly ips: boolean;
}

/** The shortest HMAC secret taken, from the options or from Redis. */
export const MIN_IDENTITY_SECRET_LENGTH = 32;
/** 22 base64url characters: 132 bits of the HMAC, far beyond any birthday collision. */
const FINGERPRINT_LENGTH = 22;
/** A kind longer than this is not a kind (`user:`, `h:x-tenant:`), just text with a colon. */
const MAX_KIND_LENGTH = 48;
/** API keys at least this long show their first 4 characters, like `sk_l` of `sk_live_…`. */
const HINTED_KEY_LENGTH = 16;
const HINT = /^[A-Za-z0-9._-]{4}$/;
/** Never in encodeKeyPart's output (`!` is always %-encoded), so the two forms never meet. */
const MARK = '!';
const LISTED = /^([^]*?)(?:([A-Za-z0-9._-]{4})…)?\(hmac:([A-Za-z0-9_-]{22})\)$/u;

/**
 * The kind of an identity, kept readable: `user:`, `key:`, `fn:`, `h:<header>:`, or '' for
 * text without one.
 */
function kindOf(identity: string): string {
  const colon = identity.startsWith('h:') ? identity.indexOf(':', 2) : identity.indexOf(':');
  return colon === -1 || colon >= MAX_KIND_LENGTH ? '' : identity.slice(0, colon + 1);
}

/**
 * Keys identities that are secrets or personal data (API keys, user ids, header values, the
 * results of key functions) by a keyed hash, so Redis, logs and the admin API never hold them
 * in clear; `ip:` (unless `scope.ips`) and `route:` identities stay readable.
 */
export class IdentityFingerprint {
  constructor(
    private readonly secret: Buffer,
    private readonly scope: FingerprintScope,
  ) {}

  /** Whether the identity is keyed by its fingerprint (else in clear). */
  covers(identity: string): boolean {
    if (identity.startsWith('route:')) return false;
    return this.scope.ips || !identity.startsWith('ip:');
  }

  /** The encoded key part of an identity: its fingerprinted form, or undefined to keep it. */
  keyPart(identity: string): string | undefined {
    if (!this.covers(identity)) return undefined;
    const kind = kindOf(identity);
    const value = identity.slice(kind.length);
    const hint =
      kind === 'key:' && value.length >= HINTED_KEY_LENGTH && HINT.test(value.slice(0, 4))
        ? value.slice(0, 4)
        : '';
    const fingerprint = createHmac('sha256', this.secret)
      .update(identity, 'utf8')
      .digest('base64url')
      .slice(0, FINGERPRINT_LENGTH);
    return `${encodeKeyPart(kind)}${MARK}${hint}${MARK}${fingerprint}`;
  }
}

/** A new random secret for the HMAC of identities. */
export function newIdentitySecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether an encoded key part is a fingerprinted one. */
export function isFingerprintPart(encoded: string): boolean {
  return encoded.includes(MARK);
}

/**
 * The readable form of a fingerprinted key part, as the admin API lists it:
 * `key:sk_l…(hmac:<fingerprint>)`, `user:(hmac:<fingerprint>)`.
 */
export function listedFingerprint(encoded: string, decode: (part: string) => string): string {
  const [kind, hint, fingerprint] = encoded.split(MARK);
  return `${decode(kind)}${hint ? `${hint}…` : ''}(hmac:${fingerprint})`;
}

/**
 * The key part an operator means by a listed fingerprint form, or undefined when `listed` is
 * not one. Operators only (the admin reset): a client never reaches a key through it.
 */
export function fingerprintPartOf(listed: string): string | undefined {
  const match = LISTED.exec(listed);
  if (!match) return undefined;
  const [, kind, hint = '', fingerprint] = match;
  return `${encodeKeyPart(kind)}${MARK}${hint}${MARK}${fingerprint}`;
}
