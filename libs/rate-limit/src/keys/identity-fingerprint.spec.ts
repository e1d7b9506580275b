import { encodeKeyPart } from './encode-key-part';
import {
  IdentityFingerprint,
  MIN_IDENTITY_SECRET_LENGTH,
  fingerprintPartOf,
  newIdentitySecret,
} from './identity-fingerprint';
import { KeyBuilder } from './key-builder';

const SECRET = Buffer.from('a-test-secret-of-at-least-32-characters');

function builder(ips = false): KeyBuilder {
  const keys = new KeyBuilder('rl');
  keys.useFingerprint(new IdentityFingerprint(SECRET, { ips }));
  return keys;
}

describe('identity fingerprints', () => {
  // Built in beforeAll, not while Jest collects the tests: mutation testing then sees the
  // KeyBuilder code as run by tests (docs/MUTATION.md, static mutants).
  let keys: KeyBuilder;
  beforeAll(() => {
    keys = builder();
  });
  const listed = (identity: string) => keys.listedIdentity(keys.identityTag(identity));

  it.each([
    ['user:alice@example.com', /^user:\(hmac:[A-Za-z0-9_-]{22}\)$/],
    ['key:sk_live_0123456789abcdef', /^key:sk_l…\(hmac:[A-Za-z0-9_-]{22}\)$/],
    ['key:short-key', /^key:\(hmac:[A-Za-z0-9_-]{22}\)$/], // too short to show a hint
    ['key:s:k:live-0123456789abcdef', /^key:\(hmac:[A-Za-z0-9_-]{22}\)$/], // hint not plain text
    ['h:x-tenant:acme', /^h:x-tenant:\(hmac:[A-Za-z0-9_-]{22}\)$/],
    ['fn:whatever', /^fn:\(hmac:[A-Za-z0-9_-]{22}\)$/],
    ['no-kind-at-all', /^\(hmac:[A-Za-z0-9_-]{22}\)$/],
  ])('%s is keyed and listed as its fingerprint, never in clear', (identity, form) => {
    expect(listed(identity)).toMatch(form);
    const tag = keys.identityTag(identity);
    const value = identity.slice(identity.lastIndexOf(':') + 1);
    expect(tag).not.toContain(value.length > 8 ? value.slice(4) : value);
  });

  it.each([
    // A one-letter kind is a kind too.
    ['x:secret-value', /^x:\(hmac:[A-Za-z0-9_-]{22}\)$/],
    // The longest kind: its colon at index 47.
    [`${'k'.repeat(47)}:v`, new RegExp(`^${'k'.repeat(47)}:\\(hmac:[A-Za-z0-9_-]{22}\\)$`)],
    // One character longer is just text with a colon: nothing of it is shown.
    [`${'k'.repeat(48)}:v`, /^\(hmac:[A-Za-z0-9_-]{22}\)$/],
    // A header kind keeps the header name, up to its second colon.
    ['h:x-api-key:abc:def', /^h:x-api-key:\(hmac:[A-Za-z0-9_-]{22}\)$/],
    // An API key of exactly 16 characters shows its first 4; 15 do not.
    ['key:abcd567890123456', /^key:abcd…\(hmac:[A-Za-z0-9_-]{22}\)$/],
    ['key:abcd56789012345', /^key:\(hmac:[A-Za-z0-9_-]{22}\)$/],
    // The hint only ever comes from an API key.
    ['user:abcd567890123456', /^user:\(hmac:[A-Za-z0-9_-]{22}\)$/],
  ])('lists %j as %s', (identity, form) => {
    expect(listed(identity)).toMatch(form);
  });

  it('keys the whole identity: the same value under two kinds gets two keys', () => {
    expect(keys.identityTag('user:42')).not.toBe(keys.identityTag('key:42'));
    expect(keys.identityTag('user:42')).not.toBe(keys.identityTag('user:43'));
  });

  it('keeps ip: and route: readable, unless ips is set', () => {
    expect(listed('ip:203.0.113.7')).toBe('ip:203.0.113.7');
    expect(listed('route:demo.x')).toBe('route:demo.x');
    const hashed = builder(true);
    expect(hashed.listedIdentity(hashed.identityTag('ip:203.0.113.7'))).toMatch(
      /^ip:\(hmac:[A-Za-z0-9_-]{22}\)$/,
    );
  });

  it('depends on the secret, and is the same for the same secret', () => {
    const other = new KeyBuilder('rl');
    other.useFingerprint(
      new IdentityFingerprint(Buffer.from('another-secret-0123456789abcdefghij'), { ips: false }),
    );
    expect(other.identityTag('user:bob')).not.toBe(keys.identityTag('user:bob'));
    expect(builder().identityTag('user:bob')).toBe(keys.identityTag('user:bob'));
  });

  it('never meets an identity kept in clear: no encoded identity contains the mark', () => {
    for (const text of ['!', 'ip:a!b', 'ip:!!x', 'ip:(hmac:x)'])
      expect(encodeKeyPart(text)).not.toContain('!');
  });

  it('maps a listed form back to its key for the operator, and nothing else', () => {
    for (const identity of ['user:carol', 'key:sk_live_0123456789abcdef', 'h:x-tenant:acme']) {
      const tag = keys.identityTag(identity);
      expect(keys.operatorTags(listed(identity))).toContain(tag);
    }
    expect(fingerprintPartOf('user:carol')).toBeUndefined();
    expect(fingerprintPartOf('user:(hmac:short)')).toBeUndefined();
    const form = listed('user:carol');
    expect(fingerprintPartOf(`${form}x`)).toBeUndefined();
    expect(fingerprintPartOf(`${form}\n`)).toBeUndefined();
  });

  it('maps a listed form with a hint back to the same key part', () => {
    const identity = 'key:sk_live_0123456789abcdef';
    const tag = keys.identityTag(identity);
    expect(keys.operatorTags(listed(identity))).toEqual([keys.identityTag(listed(identity)), tag]);
  });

  it('useFingerprint(undefined) keys identities in clear again (identityHashing: false)', () => {
    const clear = builder();
    clear.useFingerprint(undefined);
    expect(clear.listedIdentity(clear.identityTag('user:dave'))).toBe('user:dave');
  });
});

describe('newIdentitySecret', () => {
  it('is 32 random bytes in base64url, long enough to be taken as a secret', () => {
    const secret = newIdentitySecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(secret.length).toBeGreaterThanOrEqual(MIN_IDENTITY_SECRET_LENGTH);
    expect(newIdentitySecret()).not.toBe(secret);
  });
});
