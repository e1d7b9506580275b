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
  const digest = createHash('sha256')
    .update(Buffer.from(text, 'utf16le'))
    .digest('base64url')
    .slice(0, 22);
  return `${encodedHead(text)}~${digest}`;
}

/**
 * The encoding of the longest start of `text` that encodes to at most 64 characters, cut between
 * whole characters (never inside `%XX`), so that the readable form shown by the admin API
 * encodes back to exactly this head.
 */
function encodedHead(text: string): string {
  let head = '';
  // for...of walks code points; a lone surrogate comes out on its own, as encodeChar expects.
  for (const ch of text.slice(0, KEPT_PREFIX)) {
    const piece = SAFE.test(ch) ? ch : encodeChar(ch);
    if (head.length + piece.length > KEPT_PREFIX) break;
    head += piece;
  }
  return head;
}

const HASHED_DISPLAY = /^([^]*)…\(sha256:([A-Za-z0-9_-]{22})\)$/u;

/**
 * The encoded part behind a readable form that decodeKeyPart gave for a hashed long value, or
 * undefined when `display` is not such a form. It lets an operator reset a long identity by
 * what the admin API shows (RateLimiterService.resetListed); request identities and reset()
 * never go through it, so a client cannot type its way into someone else's hashed key.
 */
export function hashedKeyPartOf(display: string): string | undefined {
  const match = HASHED_DISPLAY.exec(display);
  if (!match) return undefined;
  const head = percentEncode(match[1]);
  return head.length <= KEPT_PREFIX ? `${head}~${match[2]}` : undefined;
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
