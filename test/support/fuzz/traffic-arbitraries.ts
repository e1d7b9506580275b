/**
 * What clients and operators can put in front of the limiter itself: public requests with
 * hostile identity headers and query strings, and policy hashes written straight into Redis
 * (as `redis-cli HSET <prefix>:policy:<name> field value` would).
 */
import fc from 'fast-check';
import { RATE_LIMIT_ALGORITHMS } from '../../../libs/rate-limit/src/policy/rate-limit-algorithm';
import { PUBLIC_ROUTES } from '../demo-routes';
import { PROTOTYPE_NAMES, headerValue, hex, hostileText, numberText, pct } from './hostile-values';


/** `size` loopback clients (127.<block>.x.y), so that not every request meets one exhausted limit. */
export const sourceAddress = (block: number, size = 16): fc.Arbitrary<string> =>
  fc.nat(size - 1).map((n) => `127.${block}.${Math.floor(n / 250)}.${(n % 250) + 1}`);

const ip = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4().map((v4) => `::ffff:${v4}`),
  fc.constantFrom('999.1.1.1', '1.2.3', '01.02.03.04', '127.0.0.1:80', '[::1]', 'fe80::1%eth0'),
  fc.constantFrom('unknown', '_hidden', 'localhost', '0x7f.1', '2130706433', '::', '0.0.0.0'),
);

/** X-Forwarded-For: lists of addresses and garbage, short and long. */
const forwardedFor = fc
  .array(fc.oneof({ arbitrary: ip, weight: 3 }, hostileText(200)), { maxLength: 30 })
  .chain((entries) => fc.constantFrom(', ', ',', ' , ').map((sep) => entries.join(sep)));

/** Identity headers as they come off the wire (unicode as raw UTF-8 bytes). */
export const publicHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      'x-forwarded-for': forwardedFor,
      'x-real-ip': fc.oneof(ip, hostileText(200)),
      forwarded: fc.oneof(
        ip.map((a) => `for=${a}`),
        ip.map((a) => `for="[${a}]:1";proto=https`),
        hostileText(200),
      ),
      'x-api-key': fc.oneof(hex(0, 40), hostileText(3_000)),
    },
    { requiredKeys: [] },
  )
  .map((headers) =>
    Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, headerValue(v)])),
  );

export const publicRequest = fc.record({
  route: fc.constantFrom(...PUBLIC_ROUTES),
  query: fc.oneof(
    fc.constant(''),
    fc.tuple(hostileText(200), hostileText(200)).map(([k, v]) => `?${pct(k)}=${pct(v)}`),
  ),
  headers: publicHeaders,
  from: sourceAddress(88),
});

const OVERRIDE_FIELDS = ['algo', 'limit', 'windowMs', 'burst', 'mode', 'enabled', 'updatedAt'];

/** A value as redis-cli would store it: valid ones, out of range, wrong type, huge. */
const storedValue = fc.oneof(
  numberText,
  fc.constantFrom(...RATE_LIMIT_ALGORITHMS, 'GCRA', 'token_bucket', 'foo'),
  fc.constantFrom('enforce', 'shadow', 'true', 'false', '1', '0', 'TRUE', 'yes', ''),
  fc.constantFrom(' 5', '5 ', '+5', '0x10', '5.0', '1_000', 'NaN', 'Infinity', '-Infinity'),
  hostileText(10_000),
);

export interface HashWrite {
  /** DEL the hash first (replace) or HSET over what is there (merge). */
  replace: boolean;
  fields: [string, string][];
}

export const policyHashWrite: fc.Arbitrary<HashWrite> = fc.record({
  replace: fc.boolean(),
  fields: fc.array(
    fc.tuple(
      fc.oneof(
        { arbitrary: fc.constantFrom(...OVERRIDE_FIELDS), weight: 6 },
        fc.constantFrom(...PROTOTYPE_NAMES, 'Limit', 'window', 'window_ms'),
        hostileText(300),
      ),
      storedValue,
    ),
    { minLength: 1, maxLength: 6 },
  ),
});
