import type { ClientOverride } from '../../policy/client-override';
import { normalizePolicy } from '../../policy/normalize-policy';
import { MAX_LIMIT, MAX_WINDOW_MS } from '../../policy/policy-limits';
import { clientOverrideProblems } from './client-override-problems';

const NOW = 1_700_000_000_000;
const POLICY = normalizePolicy({ limit: 10, window: '1m' }, 'api', 'test');
const SLIDING = normalizePolicy({ algo: 'sliding-window', limit: 10, window: '1m' }, 'log', 'test');

const problemsOf = (override: Partial<ClientOverride>, policy = POLICY): string[] =>
  clientOverrideProblems(override as ClientOverride, policy, NOW);

const LIMIT = `limit must be an integer from 1 to ${MAX_LIMIT}`;
const BURST = `burst must be an integer from 1 to ${MAX_LIMIT}`;
const WINDOW = `window must be a whole number of ms from 1 to ${MAX_WINDOW_MS}`;
const EXPIRY = 'expiresAt must be in the future, at most 366 days ahead';
const CONTROL = 'message must be text without control characters';
const BLANK = "message must not be blank: leave it out for the default 'Forbidden'";
const FORMAT =
  'message must not contain format characters (such as U+202E or U+200B), line or paragraph separators';

describe('clientOverrideProblems', () => {
  it.each([
    [{ action: 'allow' }],
    [{ action: 'deny' }],
    [{ action: 'deny', message: 'Account suspended: see /billing' }],
    [{ action: 'deny', message: 'x'.repeat(200) }],
    [{ action: 'deny', message: 'Arrêté 🦀: « voir /facturation »' }],
    [{ action: 'quota', limit: 1 }],
    [{ action: 'quota', windowMs: MAX_WINDOW_MS }],
    [{ action: 'quota', burst: MAX_LIMIT }],
    [{ action: 'quota', limit: 5, windowMs: 1, burst: 8, expiresAt: NOW + 1 }],
    [{ action: 'allow', expiresAt: NOW + MAX_WINDOW_MS }],
  ] as [Partial<ClientOverride>][])('finds nothing wrong with %j', (override) => {
    expect(problemsOf(override)).toEqual([]);
  });

  it.each([['block'], [''], ['ALLOW'], [undefined]])('refuses the action %p', (action) => {
    expect(problemsOf({ action: action as never })).toEqual([
      'action must be one of quota, allow, deny',
    ]);
  });

  it('refuses a quota that sets no threshold', () => {
    expect(problemsOf({ action: 'quota' })).toEqual([
      'a quota must set at least one of limit, window, burst',
    ]);
  });

  it.each([[0], [-1], [1.5], [MAX_LIMIT + 1], [Number.NaN], ['5']])(
    'refuses the quota limit %p',
    (limit) => {
      expect(problemsOf({ action: 'quota', limit: limit as never })).toEqual([LIMIT]);
    },
  );

  it.each([[0], [2.5], [MAX_LIMIT + 1], ['5']])('refuses the quota burst %p', (burst) => {
    expect(problemsOf({ action: 'quota', burst: burst as never })).toEqual([BURST]);
  });

  it.each([[0], [1.5], [MAX_WINDOW_MS + 1], ['1m'], [Number.POSITIVE_INFINITY]])(
    'refuses the quota window %p',
    (windowMs) => {
      expect(problemsOf({ action: 'quota', windowMs: windowMs as never })).toEqual([WINDOW]);
    },
  );

  it("refuses a quota limit the policy's algorithm cannot hold", () => {
    expect(problemsOf({ action: 'quota', limit: 10_001 }, SLIDING)).toEqual([
      `limit must be at most 10000 with algo 'sliding-window', which keeps one entry per ` +
        `request in the window (got 10001); use 'sliding-window-counter' for larger limits`,
    ]);
    expect(problemsOf({ action: 'quota', limit: 10_000 }, SLIDING)).toEqual([]);
    expect(problemsOf({ action: 'quota', limit: 10_001 })).toEqual([]);
  });

  it.each(['allow', 'deny'] as const)('refuses thresholds with action %s', (action) => {
    expect(problemsOf({ action, limit: 5, windowMs: 1_000, burst: 5 })).toEqual([
      "limit is only for action 'quota'",
      "windowMs is only for action 'quota'",
      "burst is only for action 'quota'",
    ]);
  });

  it.each(['allow', 'quota'] as const)('refuses a message with action %s', (action) => {
    const override = action === 'quota' ? { action, limit: 5 } : { action };
    expect(problemsOf({ ...override, message: 'Go away' })).toEqual([
      "message is only for action 'deny'",
    ]);
  });

  it.each([['line\nbreak'], ['tab\t'], ['nul\u0000'], ['del\u007f'], ['\u001b[31mred']])(
    'refuses the deny message %j',
    (message) => {
      expect(problemsOf({ action: 'deny', message })).toEqual([CONTROL]);
    },
  );

  // The client of a blank message gets 'Forbidden', not what the listing shows.
  it.each([[''], [' '], ['\u3000 ']])('refuses the blank deny message %j', (message) => {
    expect(problemsOf({ action: 'deny', message })).toEqual([BLANK]);
  });

  it.each([
    ['\u0085next line'], // C1 control
    ['\u009b31m'],
  ])('refuses the deny message %j with a C1 control character', (message) => {
    expect(problemsOf({ action: 'deny', message })).toEqual([CONTROL]);
  });

  it.each([
    ['right-to-left override', 'Paid \u202eetats'],
    ['left-to-right mark', 'a\u200eb'],
    ['zero-width space', 'a\u200bb'],
    ['byte-order mark', '\ufeffhi'],
    ['line separator', 'one\u2028two'],
    ['paragraph separator', 'one\u2029two'],
    ['lone surrogate', 'a\ud800b'],
  ])('refuses a deny message with a %s', (_what, message) => {
    expect(problemsOf({ action: 'deny', message })).toEqual([FORMAT]);
  });

  it.each([[5], [null], [{ text: 'x' }]])('refuses the non-text deny message %p', (message) => {
    expect(problemsOf({ action: 'deny', message: message as never })).toEqual([CONTROL]);
  });

  it('refuses a deny message longer than 200 characters', () => {
    expect(problemsOf({ action: 'deny', message: 'x'.repeat(201) })).toEqual([
      'message must be at most 200 characters',
    ]);
  });

  it.each([
    ['now', NOW],
    ['the past', NOW - 1],
    ['beyond 366 days', NOW + MAX_WINDOW_MS + 1],
    ['a fraction', NOW + 1.5],
    ['text', String(NOW + 1_000)],
  ])('refuses an expiry at %s', (_, expiresAt) => {
    expect(problemsOf({ action: 'allow', expiresAt: expiresAt as never })).toEqual([EXPIRY]);
  });

  it('lists every problem, in order', () => {
    expect(
      problemsOf({ action: 'quota', limit: 0, windowMs: 0, burst: 0, message: 'x', expiresAt: 0 }),
    ).toEqual([LIMIT, BURST, WINDOW, "message is only for action 'deny'", EXPIRY]);
  });
});
