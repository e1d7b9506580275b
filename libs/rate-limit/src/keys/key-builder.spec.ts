import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { InvalidIdentityError } from '../errors/invalid-identity.error';
import { encodeKeyPart } from './encode-key-part';
import { IdentityFingerprint } from './identity-fingerprint';
import { KeyBuilder } from './key-builder';

const policy: RateLimitPolicy = {
  name: 'Auth.login',
  algo: 'sliding-window',
  limit: 5,
  windowMs: 60_000,
  burst: 5,
  blockForMs: 0,
  mode: 'enforce',
  enabled: true,
};

describe('KeyBuilder', () => {
  const IP = 'ip:203.0.113.7';
  const LONG = `h:x-tenant:${'t'.repeat(300)}`;

  it('puts the encoded identity in the hash tag: <prefix>:{<identity>}:<policy>:<algo code>', () => {
    const keys = new KeyBuilder('rl');
    const tag = keys.identityTag(IP);
    expect(tag).toBe('rl:{ip%3A203.0.113.7}:');
    expect(keys.stateKey(tag, policy)).toBe('rl:{ip%3A203.0.113.7}:Auth.login:sw');
    expect(keys.blockKey(keys.stateKey(tag, policy))).toBe(
      'rl:{ip%3A203.0.113.7}:Auth.login:sw:block',
    );
  });

  it('keeps every key of one policy under one SCAN pattern and suffix, for its algorithm only', () => {
    const keys = new KeyBuilder('app/v2');
    expect(keys.stateSuffix(policy)).toBe('}:Auth.login:sw');
    expect(keys.statePattern(policy)).toBe('app/v2:{*}:Auth.login:sw');
    expect(keys.statePattern({ ...policy, algo: 'gcra' })).toBe('app/v2:{*}:Auth.login:gcra');
    const key = keys.stateKey(keys.identityTag(IP), policy);
    expect(key.endsWith(keys.stateSuffix(policy))).toBe(true);
  });

  it('lists state and block keys of a policy under one SCAN pattern', () => {
    const keys = new KeyBuilder('rl');
    expect(keys.listingPattern(policy)).toBe('rl:{*}:Auth.login:sw*');
    const state = keys.stateKey(keys.identityTag(IP), policy);
    const glob = new RegExp(
      `^${keys.listingPattern(policy).replace(/[{}.]/g, '\\$&').replace(/\*/g, '.*')}$`,
    );
    expect(glob.test(state)).toBe(true);
    expect(glob.test(keys.blockKey(state))).toBe(true);
  });

  it('finds the state key of a block key', () => {
    const keys = new KeyBuilder('rl');
    const state = keys.stateKey(keys.identityTag(IP), policy);
    expect(keys.stateKeyOfBlock(keys.blockKey(state))).toBe(state);
    expect(keys.stateKeyOfBlock('rl:{x}:p:gcra:block')).toBe('rl:{x}:p:gcra');
  });

  it('finds the tag of a state key and of a block key', () => {
    const keys = new KeyBuilder('rl');
    for (const identity of [IP, 'user:alice', LONG, 'a}b{c']) {
      const tag = keys.identityTag(identity);
      const state = keys.stateKey(tag, policy);
      expect(keys.tagOfKey(state)).toBe(tag);
      expect(keys.tagOfKey(keys.blockKey(state))).toBe(tag);
    }
  });

  it('lists the identity of a tag readably, a long one by its head and hash', () => {
    const keys = new KeyBuilder('rl');
    expect(keys.listedIdentity(keys.identityTag(IP))).toBe(IP);
    expect(keys.listedIdentity(keys.identityTag('user:{evil}*'))).toBe('user:{evil}*');
    expect(keys.listedIdentity(keys.identityTag(LONG))).toMatch(
      /^h:x-tenant:t+…\(sha256:[A-Za-z0-9_-]{22}\)$/,
    );
  });

  it('resets by an identity, or by the listed form of a long one', () => {
    const keys = new KeyBuilder('rl');
    expect(keys.operatorTags(IP)).toEqual([keys.identityTag(IP)]);
    const listed = keys.listedIdentity(keys.identityTag(LONG));
    expect(keys.operatorTags(listed)).toEqual([keys.identityTag(listed), keys.identityTag(LONG)]);
  });

  it('means an address an operator types as the limiter keys it, and refuses ambiguous ones', () => {
    const keys = new KeyBuilder('rl');
    expect(keys.operatorTags('IP:::ffff:203.0.113.7')).toEqual([keys.identityTag(IP)]);
    expect(keys.operatorTag('ip:2001:DB8::1')).toBe(keys.identityTag('ip:2001:db8:0:0::/64'));
    expect(() => keys.operatorTags('ip:203.000.113.007')).toThrow(InvalidIdentityError);
  });

  it('remembers a tag, and forgets the remembered tags when the fingerprint changes', () => {
    const keys = new KeyBuilder('rl');
    expect(keys.identityTag('user:bob')).toBe(`rl:{${encodeKeyPart('user:bob')}}:`);
    expect(keys.identityTag('user:bob')).toBe(keys.identityTag('user:bob'));
    keys.useFingerprint(new IdentityFingerprint(Buffer.alloc(32, 7), { ips: false }));
    expect(keys.identityTag('user:bob')).toMatch(/^rl:\{user%3A!!.{22}\}:$/);
    expect(keys.identityTag(IP)).toBe('rl:{ip%3A203.0.113.7}:');
  });
});
