import { createHash } from 'node:crypto';

/** Characters kept as they are; everything else (`{ } * : % ~`, spaces, newlines, NUL, non-ASCII) is %XX-encoded. */
const SAFE = /^[A-Za-z0-9._\-@/]*$/;
const UNSAFE_CHAR = /[^A-Za-z0-9._\-@/]/gu;
/** Longer encodings are cut and completed by a hash, so client text cannot make keys unbounded. */
const MAX_ENCODED_LENGTH = 96;
const KEPT_PREFIX = 64;

const hex2 = (n: number): string => n.toString(16).toUpperCase().padStart(2, '0');
/** `%XX` of every ASCII character: the usual unsafe characters (`:` of `ip:…`) need no Buffer. */
const ASCII_ENCODED = Array.from({ length: 128 }, (_, code) => `%${hex2(code)}`);

function encodeChar(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code < 128) return ASCII_ENCODED[code];
  // A lone surrogate has no UTF-8 form; encoding it as U+FFFD would make two inputs collide.
  if (code >= 0xd800 && code <= 0xdfff) return `%u${code.toString(16).toUpperCase()}`;
  return Array.from(Buffer.from(ch, 'utf8'), (byte) => `%${hex2(byte)}`).join('');
}

function percentEncode(text: string): string {
  return text.replace(UNSAFE_CHAR, encodeChar);
}

/**
 * Encodes user-controlled text for use inside a Redis key. The result never contains `{`, `}`,
 * `:`, `*` or whitespace, is at most 96 + 23 characters, and is injective: two different inputs
 * never share an encoding (`%` is always encoded, and `~` only ever introduces the hash suffix).
 */
export function encodeKeyPart(text: string): string {
  // Longer text always encodes past the bound: only its head is encoded (a 64 KB header must
  // cost no more than a short one), and the digest of its UTF-16 code units, which keep lone
  // surrogates apart, stands for the whole.
  const encoded =
    text.length > MAX_ENCODED_LENGTH ? null : SAFE.test(text) ? text : percentEncode(text);
  if (encoded !== null && encoded.length <= MAX_ENCODED_LENGTH) return encoded;
  const head = (encoded ?? percentEncode(text.slice(0, KEPT_PREFIX))).slice(0, KEPT_PREFIX);
  const digest = createHash('sha256')
    .update(Buffer.from(text, 'utf16le'))
    .digest('base64url')
    .slice(0, 22);
  return `${head}~${digest}`;
}

/** The readable form of an encoded part; a hashed long value keeps its prefix and a `…` mark. */
export function decodeKeyPart(encoded: string): string {
  const [head, digest] = encoded.split('~');
  const text = head
    .split(/(%u[0-9A-F]{4})/)
    .map((part) =>
      part.startsWith('%u') ? String.fromCharCode(parseInt(part.slice(2), 16)) : decodePart(part),
    )
    .join('');
  return digest === undefined ? text : `${text}…(sha256:${digest})`;
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part; // cut in the middle of a %XX sequence by the length limit
  }
}
