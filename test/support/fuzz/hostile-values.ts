/**
 * Hostile building blocks shared by the fuzz arbitraries: texts (unicode, lone surrogates, key
 * and glob metacharacters, very long), numbers written every way JSON and Redis allow, and the
 * encodings that get them onto the wire (URL paths, HTTP header values).
 */
import fc from 'fast-check';

/** Characters that mean something to Redis keys, globs, URLs, JSON or the key scheme. */
// prettier-ignore
const META = [
  '{', '}', '*', '?', '[', ']', ':', '/', '\\', '%', '.', '..', '\0', '\n', '\r', '\t', ' ', '"',
  "'", '#', '&', '=', '+', ';', ',', '~', '@', '$', '…', 'é', '🦀', '\u202e', '\uD800', '\uDC00',
];

/** Object.prototype names and friends: where a lookup in a plain object finds something. */
// prettier-ignore
export const PROTOTYPE_NAMES = [
  '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty',
  'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__',
];

/** `text` repeated to `length` characters: long values without generating them char by char. */
const long = (maxLength: number) =>
  fc
    .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), fc.nat(maxLength))
    .map(([text, length]) => text.repeat(Math.ceil(length / text.length)).slice(0, length));

export const hostileText = (maxLong = 5_000): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.string({ unit: fc.constantFrom(...META), maxLength: 12 }),
    fc.constantFrom('', ' ', '0', '-1', 'null', 'undefined', 'NaN', ...PROTOTYPE_NAMES),
    long(maxLong),
  );

/** Numbers as JSON or redis-cli text: exponents, signs, padding, past 2^53, past 2^64. */
// prettier-ignore
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom(
    '0', '-0', '1', '1.0', '1e0', '1e3', '1E3', '0.5', '-1', '00010', '1e400', '-1e400', '1e-400',
    '1000000000', '1000000001', '9007199254740993', '18446744073709551616', '31622400000',
    '31622400001',
  ),
);

/** Redis's SCAN-family cursors are unsigned 64-bit: these it refuses, past 2^64 - 1 (20 digits and more). */
export const cursorPastU64: fc.Arbitrary<string> = fc.oneof(
  fc.bigInt({ min: 2n ** 64n, max: 10n ** 20n - 1n }).map(String),
  fc.constantFrom(`${2n ** 64n}`, `${10n ** 20n - 1n}`, `000${2n ** 64n}`, `${10n ** 20n}`),
);

/** Cursors Redis takes (any unsigned 64-bit value, leading zeros included). */
export const cursorWithinU64: fc.Arbitrary<string> = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
  fc.constantFrom(`${2n ** 64n - 1n}`, '00000000000000000001', '1'),
);

/**
 * JSON text nested 17 to 5,000 levels deep (arrays, objects, both), as the whole body or one
 * field's value: deeper than any admin input, under the 100 kB body limit. class-transformer
 * once overflowed its stack on 3,100 levels and answered 500.
 */
export const deeplyNestedJson: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 17, max: 5_000 }),
    // [opening, closing, levels each pair adds]
    fc.constantFrom(
      ...([
        ['[', ']', 1],
        ['{"a":', '}', 1],
        ['[{"a":', '}]', 2],
        ['{"limit":[', ']}', 2],
      ] as const),
    ),
    fc.constantFrom(...[undefined, 'limit', 'message', 'window', 'constructor', '__proto__']),
  )
  .map(([depth, [open, close, perPair], field]) => {
    const pairs = Math.ceil(depth / perPair);
    const value = `${open.repeat(pairs)}1${close.repeat(pairs)}`;
    return field === undefined ? value : `{${JSON.stringify(field)}:${value}}`;
  });

/** Lower-case hex digits (a fingerprint, an API key). */
export const hex = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength, maxLength });

/** Values of any JSON type, most of them wrong for any field. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileText(), weight: 3 },
  { arbitrary: numberText.map(Number), weight: 3 },
  { arbitrary: fc.constantFrom(true, false, null, [], {}), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
);

// prettier-ignore
const RAW_PIECE = fc.constantFrom(
  '%', '.', '..', '%2F', '%2f', '%00', '%2e', '%E0%A4%A', '%C0%AF', '%FF', '%zz', '%25', ';', '~',
  '*', '$', '@', ':', "'", '(', '!', '+', '=', ',', 'a',
);

/**
 * Keeps an encoded path part or query under 3,000 characters (cutting an escape in half is one
 * more hostile input): Node refuses a request line past 16 kB with a bare 431 before any app code.
 */
export const atMost = (text: string): string => text.slice(0, 3_000);

/** A path segment as a client might send it: percent-encoded text, or raw (and maybe broken). */
export const pathSegment = (known: readonly string[]): fc.Arbitrary<string> =>
  fc
    .oneof(
      { arbitrary: fc.constantFrom(...known), weight: 1 },
      { arbitrary: hostileText().map(pct), weight: 4 },
      { arbitrary: fc.string({ unit: RAW_PIECE, minLength: 1, maxLength: 10 }), weight: 2 },
      { arbitrary: fc.constantFrom('.', '..', '%2e%2e', '', 'x'.repeat(6_000)), weight: 1 },
    )
    .map(atMost);

/**
 * Percent-encodes the UTF-8 bytes of `text` (as encodeURIComponent does, but a lone surrogate
 * goes out as U+FFFD instead of throwing).
 */
export function pct(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9\-_.!~*'()]/.test(char)
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/**
 * A header value Node will send: unicode goes out as its UTF-8 bytes (read as latin1), and the
 * characters no header may hold (CR, LF, NUL and other controls) are dropped. Cut at 3,000
 * bytes: Node's own parser answers a bare 431 past 16 kB of headers, and already past about 8 kB
 * when a request with a body carries bytes above 0x7f (Node 20), before any app code runs.
 */
export function headerValue(text: string): string {
  const bytes = Buffer.from(text, 'utf8').toString('latin1');
  return bytes.replace(/[^\t\x20-\x7e\x80-\xff]/g, '').slice(0, 3_000);
}
