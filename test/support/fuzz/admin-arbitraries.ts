/**
 * What a caller can put in front of the admin API: PATCH bodies as wire text (allow-listed names
 * with hostile values, unknown and prototype names, duplicates, non-objects, broken JSON, other
 * media types, oversized, nested thousands of levels deep), identities to reset or override (an
 * address in every spelling among them), and Authorization headers that are not the token.
 * Listing query strings are in listing-arbitraries.ts.
 */
import fc from 'fast-check';
import {
  MAX_LIMIT,
  MAX_SLIDING_WINDOW_LIMIT,
  MAX_WINDOW_MS,
  MIN_WINDOW_MS,
} from '../../../libs/rate-limit/src/policy/policy-limits';
import { RATE_LIMIT_ALGORITHMS } from '../../../libs/rate-limit/src/policy/rate-limit-algorithm';
import {
  PROTOTYPE_NAMES,
  atMost,
  deeplyNestedJson,
  headerValue,
  hex,
  hostileJson,
  hostileText,
  numberText,
  pathSegment,
  pct,
} from './hostile-values';
import { typedAddress } from './identity-arbitraries';

export const PATCH_FIELDS = ['limit', 'window', 'windowMs', 'algo', 'burst', 'mode', 'enabled'];

/** A body on the wire: the text sent and its Content-Type (none when undefined). */
export interface WireBody {
  contentType?: string;
  text: string;
}

const count = fc.oneof(
  fc.integer({ min: 1, max: MAX_LIMIT }),
  fc.constantFrom(1, 2, MAX_SLIDING_WINDOW_LIMIT, MAX_SLIDING_WINDOW_LIMIT + 1, MAX_LIMIT),
);
const windowMs = fc.oneof(
  fc.integer({ min: MIN_WINDOW_MS, max: MAX_WINDOW_MS }),
  fc.constantFrom(MIN_WINDOW_MS, 1_000, MAX_WINDOW_MS),
);
const duration = fc
  .tuple(fc.nat(400), fc.constantFrom('ms', 's', 'm', 'h', 'd', ' s', 'S', 'w', ''))
  .map(([n, unit]) => `${n}${unit}`);

/** Values inside the accepted ranges, extremes included: bodies that get written. */
const VALID: Record<string, fc.Arbitrary<unknown>> = {
  limit: count,
  burst: count,
  window: fc.oneof(duration, windowMs),
  windowMs,
  algo: fc.constantFrom(...RATE_LIMIT_ALGORITHMS),
  mode: fc.constantFrom('enforce', 'shadow'),
  enabled: fc.boolean(),
};

/** `[name, JSON text of the value]`. */
type Entry = [string, string];

const validEntry: fc.Arbitrary<Entry> = fc
  .constantFrom(...PATCH_FIELDS)
  .chain((field) => VALID[field].map((value): Entry => [field, JSON.stringify(value)]));

const unknownName = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.constantFrom('Limit', 'LIMIT', 'limit ', 'window_ms', 'algorithm', 'updatedAt', 'colour', ''),
  hostileText(200),
);

const hostileEntry: fc.Arbitrary<Entry> = fc.tuple(
  fc.oneof({ arbitrary: fc.constantFrom(...PATCH_FIELDS), weight: 4 }, unknownName),
  fc.oneof(
    hostileJson.map((value) => JSON.stringify(value) ?? 'null'),
    numberText, // raw: '1e400', '00010' (not JSON), 2^70...
  ),
);

const objectText = (entries: Entry[]) =>
  `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;

const jsonType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/merge-patch+json',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
);

const objectBody = fc
  .array(fc.oneof({ arbitrary: validEntry, weight: 3 }, { arbitrary: hostileEntry, weight: 2 }), {
    maxLength: 6,
  })
  .map(objectText);

export const patchBody: fc.Arbitrary<WireBody> = fc.oneof(
  { arbitrary: fc.record({ contentType: jsonType, text: objectBody }), weight: 10 },
  {
    arbitrary: fc.record({
      contentType: fc.constantFrom('application/json'),
      text: fc.oneof(
        fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)), // arrays, null, 5...
        objectBody.chain((text) => fc.nat(text.length).map((n) => text.slice(0, n))), // cut short
        hostileText(),
      ),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      contentType: fc.constantFrom(undefined, 'text/plain', 'application/x-www-form-urlencoded'),
      text: fc
        .array(validEntry, { maxLength: 3 })
        .map((entries) => entries.map(([k, v]) => `${k}=${pct(v)}`).join('&')),
    }),
    weight: 1,
  },
  // Nested deeper than any admin input (class-transformer overflowed on 3,100 levels: a 500).
  deeplyNestedJson.map((text) => ({ contentType: 'application/json', text })),
  // Past the JSON parser's 100 kB limit.
  fc.integer({ min: 100_000, max: 300_000 }).map((n) => ({
    contentType: 'application/json',
    text: `{"limit":5,"pad":"${'a'.repeat(n)}"}`,
  })),
);

/** An otherwise valid body with one field outside the allow-list: must be a 400. */
export const bodyWithUnknownField: fc.Arbitrary<{ body: WireBody; unknown: string }> = fc
  .tuple(
    fc.array(validEntry, { minLength: 1, maxLength: 3 }),
    unknownName.filter((name) => !PATCH_FIELDS.includes(name)),
    fc.nat(),
    hostileJson,
  )
  .map(([entries, unknown, at, value]) => {
    const all = [...entries];
    all.splice(at % (all.length + 1), 0, [unknown, JSON.stringify(value) ?? 'null']);
    return { body: { contentType: 'application/json', text: objectText(all) }, unknown };
  });

/** `?name=value` with a name other than cursor and count: must be a 400. */
export const unknownQueryParam: fc.Arbitrary<string> = fc
  .tuple(
    unknownName.filter((name) => name !== '' && name !== 'cursor' && name !== 'count'),
    hostileText(50),
  )
  .map(([name, value]) => `${pct(name)}=${pct(value)}`);

/** An identity to reset or override, as a path segment. */
export const identitySegment: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.constantFrom('', 'ip:', 'IP:', 'key:', 'user:', 'route:', '*', '{'), hostileText())
    .map(([kind, text]) => atMost(pct(kind + text))),
  hex(64, 64).map((h) => pct(`ip:1…(sha256:${h})`)),
  typedAddress(9).map(({ typed }) => pct(typed)), // an address spelled every way
  pathSegment(['*', 'ip%3A*', '%7B*%7D', 'ip%3A(hmac%3AAAAAAAAAAAAAAAAAAAAAAA)']),
);

/** Authorization headers that do not carry `token` (undefined: no header). */
export const wrongAuthorization = (token: string): fc.Arbitrary<string | undefined> =>
  fc
    .oneof(
      fc.constant(undefined),
      fc.constantFrom(
        '',
        'Bearer',
        `Basic ${Buffer.from(`admin:${token}`).toString('base64')}`,
        `Token ${token}`,
        `Bearer ${token}x`,
        `Bearer ${token.slice(0, -1)}`,
        `Bearer ${token.toUpperCase()}`,
        `Bearer ${token}${token}`,
        `Bearer "${token}"`,
        `Bearer ${token},`,
        `Bearer ${token}é`,
        `Bearer ${token.slice(0, 16)}`,
      ),
      hostileText(8_000).map((text) => `Bearer ${text}`),
      hostileText(),
    )
    .map((value) => (value === undefined ? undefined : headerValue(value)))
    .filter((value) => value === undefined || !value.split(/\s+/).includes(token));
