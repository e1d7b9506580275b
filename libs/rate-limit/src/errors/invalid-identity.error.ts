import { RateLimitError } from './rate-limit.error';

/** The forms the limiter keys client addresses by, as operators are asked to write them. */
export const IP_IDENTITY_FORMS = 'ip:203.0.113.7 or ip:2001:db8:0:0::/64';

/**
 * An operator named an `ip:` identity in a spelling that is no address, or not an unambiguous
 * one (leading zeros, a trailing dot, spaces, a prefix other than /64): stored as typed it would
 * never match a client, so nothing is written. The admin API answers 400. The identity is not
 * repeated in the message.
 * @publicApi
 */
export class InvalidIdentityError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'InvalidIdentityError';

  constructor() {
    super(
      `identity must be a client address as the limiter keys it: ${IP_IDENTITY_FORMS} ` +
        '(IPv4 in four decimal parts without leading zeros; an IPv6 client counts as its /64)',
    );
  }
}
