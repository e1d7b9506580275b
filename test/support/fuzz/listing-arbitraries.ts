/**
 * Query strings for the admin listings: the keys listing (`<master>:<SCAN cursor>` cursors) and
 * the client-overrides listing (HSCAN cursors), with cursors of every shape, those Redis refuses
 * (past 2^64 - 1) among them, hostile counts and names other than cursor and count.
 */
import fc from 'fast-check';
import {
  atMost,
  cursorPastU64,
  cursorWithinU64,
  hostileText,
  numberText,
  pct,
} from './hostile-values';

/** A cursor for a listing whose own cursors are plain SCAN-family ones (`ownForm`). */
const cursor = (ownForm: fc.Arbitrary<string>) =>
  fc.oneof(
    fc.constantFrom('0', '-1', '', '0:0', '1:0', '9999:0', '0:', ':0', '0:0:0', '00:00'),
    ownForm,
    numberText,
    hostileText(5_000),
  );

/** Keys listing: `<master>:<cursor>`, the cursor within or past what Redis takes. */
const keysCursor = cursor(
  fc.oneof(
    fc.tuple(fc.nat(20_000), fc.bigInt({ min: 0n, max: 2n ** 70n })).map(([n, c]) => `${n}:${c}`),
    fc.tuple(fc.nat(3), fc.oneof(cursorPastU64, cursorWithinU64)).map(([n, c]) => `${n}:${c}`),
  ),
);

/** Client-overrides listing: a bare HSCAN cursor, within or past what Redis takes. */
const clientsCursor = cursor(fc.oneof(cursorPastU64, cursorWithinU64));

const queryParam = (cursorValue: fc.Arbitrary<string>) =>
  fc.oneof(
    fc.tuple(fc.constant('cursor'), cursorValue),
    fc.tuple(fc.constant('count'), fc.oneof(numberText, fc.constantFrom('', '0x10', ' 5', '1 '))),
    fc.tuple(
      fc.constantFrom('match', 'type', '__proto__', 'cursor[]', 'count[a]', 'constructor'),
      hostileText(100),
    ),
    fc.tuple(hostileText(100), hostileText(100)),
  );

const query = (cursorValue: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc
    .array(queryParam(cursorValue), { maxLength: 4 })
    .map((params) => atMost(params.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&')));

/** A query string for GET /admin/policies/:name/keys (without the `?`). */
export const keysQuery = query(keysCursor);

/** A query string for GET /admin/policies/:name/clients (without the `?`). */
export const clientsQuery = query(clientsCursor);
