import fc from 'fast-check';
import { InvalidIdentityError } from '../errors/invalid-identity.error';
import { decodeKeyPart, encodeKeyPart } from '../keys/encode-key-part';
import { normalizeIp } from './client-ip';
import { operatorIdentity } from './operator-identity';

const FINGERPRINT = 'ip:(hmac:AAAAAAAAAAAAAAAAAAAAAA)';
/** How the keys listing shows a long `ip:` identity a caller of consume() made up. */
const HASHED = decodeKeyPart(encodeKeyPart(`ip:${'v'.repeat(120)}`));

describe('operatorIdentity', () => {
  it.each([
    // Already the limiter's form.
    ['ip:203.0.113.7', 'ip:203.0.113.7'],
    ['ip:2001:db8:0:0::/64', 'ip:2001:db8:0:0::/64'],
    ['ip:unknown', 'ip:unknown'],
    // Unambiguous spellings of it.
    ['IP:203.0.113.7', 'ip:203.0.113.7'],
    ['Ip:203.0.113.7', 'ip:203.0.113.7'],
    ['ip:::ffff:203.0.113.7', 'ip:203.0.113.7'],
    ['ip:::FFFF:CB00:7107', 'ip:203.0.113.7'],
    ['ip:2001:db8::1', 'ip:2001:db8:0:0::/64'],
    ['ip:2001:DB8::1', 'ip:2001:db8:0:0::/64'],
    ['ip:2001:0db8:0000:0000:ffff:ffff:ffff:ffff', 'ip:2001:db8:0:0::/64'],
    ['ip:2001:db8::/64', 'ip:2001:db8:0:0::/64'],
    ['ip:2001:DB8:0:0:0:0:0:0/64', 'ip:2001:db8:0:0::/64'],
    ['ip:2001:db8::1/64', 'ip:2001:db8:0:0::/64'],
    ['ip:::', 'ip:0:0:0:0::/64'],
    // The admin API's listed form of a long ip: identity a caller of consume() made up.
    [HASHED, HASHED],
  ])('takes %j as %j', (typed, meant) => {
    expect(operatorIdentity(typed, false)).toBe(meant);
    expect(operatorIdentity(meant, false)).toBe(meant);
  });

  it('takes the listed fingerprint of an address only when addresses are hashed', () => {
    expect(operatorIdentity(FINGERPRINT, true)).toBe(FINGERPRINT);
    expect(operatorIdentity(FINGERPRINT.replace('ip:', 'IP:'), true)).toBe(FINGERPRINT);
    expect(operatorIdentity('ip:2001:DB8::1', true)).toBe('ip:2001:db8:0:0::/64');
    // In clear, no request is keyed by a fingerprint: an override there would match no one.
    expect(() => operatorIdentity(FINGERPRINT, false)).toThrow(InvalidIdentityError);
    // Hashed, every address is fingerprinted, none cut and hashed.
    expect(() => operatorIdentity(HASHED, true)).toThrow(InvalidIdentityError);
  });

  it.each([
    'ip:',
    'ip:203.000.113.007', // octal to some parsers
    'ip:203.0.113.07',
    'ip:203.0.113.7.',
    'ip: 203.0.113.7',
    'ip:203.0.113.7 ',
    'ip:203. 0.113.7',
    'ip:127.1', // shorthand
    'ip:3405803783',
    'ip:0xcb.0.113.7',
    'ip:203.0.113.7:8080',
    'ip:[2001:db8::1]:443',
    'ip:203.0.113.7/32',
    'ip:2001:db8::/48',
    'ip:2001:db8::/128',
    'ip:2001:db8::/064',
    'ip:::ffff:203.0.113.7/64',
    'ip:::ffff:203.000.113.007',
    'ip:fe80::1%eth0',
    'ip:2001:db8::1 ',
    'ip:2001:db8:::1',
    'ip:UNKNOWN',
    'ip:localhost',
    'ip:*',
    'ip:(hmac:short)',
  ])('refuses %j, naming the forms it takes', (typed) => {
    expect(() => operatorIdentity(typed, true)).toThrow(InvalidIdentityError);
    expect(() => operatorIdentity(typed, false)).toThrow(
      /^identity must be .* ip:203\.0\.113\.7 or ip:2001:db8:0:0::\/64 /,
    );
  });

  it.each(['user:Bob', 'key:IP:203.0.113.7', ' ip:x', 'h:x-tenant:ACME', 'route:p', 'anything'])(
    "takes %j, which is no ip: identity, as it is: it is the application's own",
    (identity) => {
      expect(operatorIdentity(identity, false)).toBe(identity);
      expect(operatorIdentity(identity, true)).toBe(identity);
    },
  );

  it('gives every address the form the limiter keys its requests by', () => {
    const address = fc.oneof(fc.ipV4(), fc.ipV6());
    fc.assert(
      fc.property(address, fc.boolean(), (ip, upper) => {
        const typed = `ip:${upper ? ip.toUpperCase() : ip}`;
        expect(operatorIdentity(typed, upper)).toBe(`ip:${normalizeIp(ip)}`);
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses every IPv4 spelling other than four decimal parts', () => {
    fc.assert(
      fc.property(fc.ipV4Extended(), (ip) => {
        const plain = /^(0|[1-9]\d*)(\.(0|[1-9]\d*)){3}$/.test(ip);
        if (plain) expect(operatorIdentity(`ip:${ip}`, false)).toBe(`ip:${ip}`);
        else expect(() => operatorIdentity(`ip:${ip}`, false)).toThrow(InvalidIdentityError);
      }),
      { numRuns: 2_000 },
    );
  });
});
