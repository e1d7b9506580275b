import fc from 'fast-check';
import { decodeKeyPart, encodeKeyPart, hashedKeyPartOf } from './encode-key-part';

/** What an encoded part may contain: the safe set, `%` escapes (`%XX`, `%uXXXX`) and the `~` hash mark. */
const ENCODED = /^[A-Za-z0-9._\-@/%u~]+$/;
/** Characters that would break the key scheme, a glob pattern or a log line. */
const FORBIDDEN = /[{}:*?[\]\s\0]/;

/** Lone surrogates and ordinary characters mixed, so pairs and halves both appear. */
const withLoneSurrogates = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.constantFrom('%', '~', ':', '{', '}', 'a', '5'),
  ),
  maxLength: 80,
});

const arbitraryKeyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary-ascii', maxLength: 200 }),
  withLoneSurrogates,
);

describe('encodeKeyPart', () => {
  it('keeps safe text as it is', () => {
    expect(encodeKeyPart('abc-DEF_0.9@x/y')).toBe('abc-DEF_0.9@x/y');
    expect(encodeKeyPart('')).toBe('');
  });

  it.each([
    ['braces', 'user:{evil}'],
    ['glob characters', 'a*b?c[d]e'],
    ['whitespace', 'a b\tc\rd\ve\ff'],
    ['newlines', 'line1\nline2\r\n'],
    ['NUL', 'a\0b'],
    ['an IPv6 network', '2001:db8::/64'],
    ['non-ASCII', 'é中😀\u00a0\u2028'],
  ])('never outputs a forbidden character for %s', (_label, input) => {
    const encoded = encodeKeyPart(input);
    expect(encoded).not.toMatch(FORBIDDEN);
    expect(encoded).toMatch(ENCODED);
  });

  it('bounds the length of a 64 KB input', () => {
    for (const input of [
      'x'.repeat(65_536),
      ':'.repeat(65_536),
      '😀'.repeat(16_384),
      '\n{'.repeat(32_768),
    ]) {
      const encoded = encodeKeyPart(input);
      expect(encoded.length).toBeLessThanOrEqual(120);
      expect(encoded).toMatch(ENCODED);
    }
  });

  it.each([
    ['a:b', 'a%3Ab'],
    ['a~b', 'a%7Eb'],
    ['a%b', 'a%25b'],
    ['a b', 'a+b'],
    ['a b', 'a%20b'],
    ['\uD800', '\uD801'],
    ['x\uD800', 'x\uDC00'],
    ['\uD83D\uDE00', '\uD83D'],
    ['\uD83D\uDE00', '%uD83D%uDE00'],
    ['\uFFFD', '\uD800'],
    ['', ' '],
    ['a'.repeat(200) + 'b', 'a'.repeat(200) + 'c'],
    [':'.repeat(100) + 'b', ':'.repeat(100) + 'c'],
    ['a'.repeat(96), 'a'.repeat(97)],
    ['a'.repeat(64) + '~' + 'b'.repeat(22), 'a'.repeat(200)],
  ])('gives different encodings to %j and %j', (left, right) => {
    expect(left).not.toBe(right);
    expect(encodeKeyPart(left)).not.toBe(encodeKeyPart(right));
  });

  it.each([
    ['a colon', 'ip:1', 'ip%3A1'],
    ['the last ASCII character', 'a\x7fb', 'a%7Fb'],
    ['the first character past ASCII', '\u0080', '%C2%80'],
    ['a two-byte character', 'é', '%C3%A9'],
    ['a three-byte character', '中', '%E4%B8%AD'],
    ['a four-byte character', '😀', '%F0%9F%98%80'],
    ['the first lone surrogate', '\uD800', '%uD800'],
    ['the last lone surrogate', '\uDFFF', '%uDFFF'],
    ['the character after the surrogates', '\uE000', '%EE%80%80'],
  ])('encodes %s as UTF-8 %%XX, or a lone surrogate as %%uXXXX', (_label, input, encoded) => {
    expect(encodeKeyPart(input)).toBe(encoded);
  });

  it('keeps a safe value of exactly 96 characters as it is', () => {
    expect(encodeKeyPart('a'.repeat(96))).toBe('a'.repeat(96));
    expect(encodeKeyPart('%'.repeat(32))).toBe('%25'.repeat(32));
  });

  it('hashes a value from 97 characters, or one whose encoding passes 96', () => {
    expect(encodeKeyPart('a'.repeat(97))).toMatch(/^a{64}~[A-Za-z0-9_-]{22}$/);
    expect(encodeKeyPart('%'.repeat(33))).toMatch(/^(%25){21}~[A-Za-z0-9_-]{22}$/);
  });

  it('keeps a readable head of 64 characters when whole characters fill it exactly', () => {
    expect(encodeKeyPart('a'.repeat(200)).split('~')[0]).toBe('a'.repeat(64));
    expect(encodeKeyPart('a'.repeat(61) + ':'.repeat(50)).split('~')[0]).toBe(
      'a'.repeat(61) + '%3A',
    );
  });

  it('cannot be made to look like a hashed long value', () => {
    const long = encodeKeyPart('z'.repeat(500));
    expect(long).toContain('~');
    // The tail of a hashed value typed in by a client is encoded, so it cannot reproduce it.
    expect(encodeKeyPart(long)).not.toBe(long);
  });

  it('is deterministic', () => {
    const input = `user:{evil}*\n${'q'.repeat(300)}`;
    expect(encodeKeyPart(input)).toBe(encodeKeyPart(input));
  });

  describe('properties', () => {
    it('outputs only the encoded alphabet, or nothing for empty input', () => {
      fc.assert(
        fc.property(arbitraryKeyText, (text) => {
          const encoded = encodeKeyPart(text);
          if (text === '') return encoded === '';
          return ENCODED.test(encoded) && !FORBIDDEN.test(encoded) && encoded.length <= 120;
        }),
        { numRuns: 2_000 },
      );
    });

    it('gives distinct inputs distinct outputs', () => {
      fc.assert(
        fc.property(arbitraryKeyText, arbitraryKeyText, (a, b) => {
          fc.pre(a !== b);
          return encodeKeyPart(a) !== encodeKeyPart(b);
        }),
        { numRuns: 2_000 },
      );
    });

    it('gives distinct outputs to inputs that differ in one position', () => {
      fc.assert(
        fc.property(
          arbitraryKeyText,
          withLoneSurrogates.filter((s) => s.length === 1),
          withLoneSurrogates.filter((s) => s.length === 1),
          fc.string({ unit: 'binary', maxLength: 150 }),
          (head, x, y, tail) => {
            fc.pre(x !== y);
            return encodeKeyPart(head + x + tail) !== encodeKeyPart(head + y + tail);
          },
        ),
        { numRuns: 1_000 },
      );
    });
  });
});

describe('decodeKeyPart', () => {
  it.each([
    '',
    'plain',
    '2001:db8::/64',
    'user:{evil}*\n',
    '10.1.2.3',
    'key:a%b~c',
    'é中😀',
    'a b\0c',
  ])('round-trips %j', (input) => {
    expect(decodeKeyPart(encodeKeyPart(input))).toBe(input);
  });

  it('cuts the readable prefix of a long value between whole characters', () => {
    const encoded = encodeKeyPart(':'.repeat(100));
    // 21 whole `%3A` (63 characters): a 22nd would pass 64, and half of one would not decode.
    expect(encoded.split('~')[0]).toBe('%3A'.repeat(21));
    expect(decodeKeyPart(encoded).startsWith(':'.repeat(21) + '…')).toBe(true);
  });

  it('shows a part it cannot decode as it is', () => {
    expect(decodeKeyPart('ab%E2%82')).toBe('ab%E2%82');
    expect(decodeKeyPart('%uD800x%3A')).toBe('\uD800x:');
  });

  it('shows the readable prefix and the hash of a long value', () => {
    const decoded = decodeKeyPart(encodeKeyPart(`key:${'k'.repeat(300)}`));
    expect(decoded.startsWith(`key:${'k'.repeat(40)}`)).toBe(true);
    expect(decoded).toMatch(/…\(sha256:[A-Za-z0-9_-]{22}\)$/);
  });
});

describe('hashedKeyPartOf', () => {
  it('turns the readable form of every hashed long value back into its encoded part', () => {
    const longText = fc.oneof(
      fc.string({ unit: 'binary', minLength: 97, maxLength: 300 }),
      fc.string({ unit: 'grapheme', minLength: 40, maxLength: 120 }),
      withLoneSurrogates.map((s) => s + ':'.repeat(40)),
    );
    fc.assert(
      fc.property(longText, (text) => {
        const encoded = encodeKeyPart(text);
        fc.pre(encoded.includes('~'));
        return hashedKeyPartOf(decodeKeyPart(encoded)) === encoded;
      }),
      { numRuns: 1_000 },
    );
  });

  it.each([
    'ip:203.0.113.7',
    'key:abc…',
    'key:abc…(sha256:short)',
    `${'x'.repeat(65)}…(sha256:${'A'.repeat(22)})`,
    `x…(sha256:${'A'.repeat(22)}) `,
    `x…(sha256:${'A'.repeat(22)})x`,
  ])('is undefined for %j, which no hashed value shows as', (display) => {
    expect(hashedKeyPartOf(display)).toBeUndefined();
  });
});
