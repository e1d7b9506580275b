import ipaddr from 'ipaddr.js';
import { InvalidIdentityError } from '../errors/invalid-identity.error';
import { hashedKeyPartOf } from '../keys/encode-key-part';
import { fingerprintPartOf } from '../keys/identity-fingerprint';
import { NOT_AN_IP, normalizeIp } from './client-ip';

const IP_KIND = /^ip:/i;
/** The only prefix length the limiter keys by: a subscriber's IPv6 allocation. */
const IPV6_CLIENT_PREFIX = '/64';

/**
 * The identity an operator means, in the form the limiter keys it by. An `ip:` identity (`IP:`
 * too) goes through normalizeIp, as a request's address does: IPv4-mapped IPv6 becomes IPv4, an
 * IPv6 address or any spelling of its /64 becomes the limiter's `a:b:c:d::/64`, hex is lower
 * case. A spelling that is no address, or an ambiguous one, is refused (InvalidIdentityError):
 * stored as typed it would never match a client. The forms the admin API lists addresses in are
 * kept as they are: `ip:unknown`, and a fingerprint when `addressesHashed` (identityHashing.ips),
 * else a hashed long value (an `ip:` identity made up by a caller of consume()). Other kinds are
 * the application's own text, taken as given.
 */
export function operatorIdentity(identity: string, addressesHashed: boolean): string {
  if (!IP_KIND.test(identity)) return identity;
  const address = identity.slice(3);
  const typed = `ip:${address}`;
  if (address === NOT_AN_IP) return typed;
  const listed = addressesHashed ? fingerprintPartOf(typed) : hashedKeyPartOf(typed);
  if (listed !== undefined) return typed;
  const canonical = addressForm(address) ?? prefixForm(address);
  if (canonical === undefined) throw new InvalidIdentityError();
  return `ip:${canonical}`;
}

/**
 * The limiter's form of an address written without ambiguity, else undefined. IPv4 (alone or
 * as the tail of an IPv6 address) must be four decimal parts without leading zeros: ipaddr.js
 * and other parsers read `010` as octal, `1.2` or a bare number as shorthand. A zone
 * (`fe80::1%eth0`) is refused: a client's /64 carries none.
 */
function addressForm(text: string): string | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return normalizeIp(text);
  if (!ipaddr.IPv6.isValid(text) || text.includes('%')) return undefined;
  const tail = text.slice(text.lastIndexOf(':') + 1);
  if (tail.includes('.') && !ipaddr.IPv4.isValidFourPartDecimal(tail)) return undefined;
  return normalizeIp(text);
}

/**
 * `<IPv6 address>/64` in any spelling (`2001:db8::/64`, `2001:db8:0:0::/64`), as its /64. Other
 * lengths are refused: a /48 or /56 spans many clients, a /128 is one address the limiter would
 * widen; an IPv4-mapped address has no /64.
 */
function prefixForm(text: string): string | undefined {
  if (!text.endsWith(IPV6_CLIENT_PREFIX)) return undefined;
  const own = addressForm(text.slice(0, -IPV6_CLIENT_PREFIX.length));
  return own?.endsWith(`::${IPV6_CLIENT_PREFIX}`) ? own : undefined;
}
