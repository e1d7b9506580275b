import { isReplyError } from '../../util/ioredis-shapes';
import { InvalidCursorError } from '../../errors/invalid-cursor.error';

/** Redis reads a SCAN-family cursor as an unsigned 64-bit integer, leading zeros allowed. */
const MAX_CURSOR = 2n ** 64n - 1n;

/**
 * Whether Redis takes `text` as a SCAN, HSCAN, SSCAN or ZSCAN cursor. One past 2^64 - 1 (20
 * digits reach 10^20 - 1) is refused by Redis with "ERR invalid cursor", a refusal of the
 * input, never a sign that Redis is unavailable: it is checked here, before any call.
 */
export function isScanCursor(text: string): boolean {
  return /^\d{1,20}$/.test(text) && BigInt(text) <= MAX_CURSOR;
}

/** A cursor Redis refused after all: the caller's input, as InvalidCursorError. */
export function refusedCursor(error: unknown): never {
  if (isReplyError(error) && /invalid cursor/i.test((error as Error).message)) {
    throw new InvalidCursorError();
  }
  throw error;
}
