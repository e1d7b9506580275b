/**
 * What an operator can set for one client of one policy: its own thresholds (`quota`), never
 * limited (`allow`: still counted, charged while within the limit), or always rejected (`deny`,
 * with its own message and no Retry-After).
 */
export const CLIENT_OVERRIDE_ACTIONS = ['quota', 'allow', 'deny'] as const;
export type ClientOverrideAction = (typeof CLIENT_OVERRIDE_ACTIONS)[number];

/** Longest message a `deny` carries to its client. */
export const MAX_DENY_MESSAGE_LENGTH = 200;

/**
 * A deny message is shown to its client and in the dashboard: no control characters (a line
 * break or a terminal escape in a response body or a log).
 */
export const WITHOUT_CONTROL_CHARACTERS = /^\P{Cc}*$/u;

/**
 * Further rules of a deny message, as [what it must match, the problem when it does not]: not
 * blank (the client would get `Forbidden`, not what is listed: leave it out for that), and no
 * format characters (U+202E and the other bidi controls, zero-width ones), line or paragraph
 * separators or lone surrogates, which reorder or hide what is shown around them.
 */
export const DENY_MESSAGE_RULES: readonly (readonly [RegExp, string])[] = [
  [/\S/u, "message must not be blank: leave it out for the default 'Forbidden'"],
  [
    /^[^\p{Cf}\p{Zl}\p{Zp}\p{Cs}]*$/u,
    'message must not contain format characters (such as U+202E or U+200B), ' +
      'line or paragraph separators',
  ],
];

/**
 * One client's override under one policy. A quota's left-out thresholds are the policy's (or
 * its tier's) at the time of each request; its `burst` follows its own `limit` when it sets one.
 */
export interface ClientOverride {
  readonly action: ClientOverrideAction;
  readonly limit?: number;
  readonly windowMs?: number;
  readonly burst?: number;
  /** `deny` only; default "Forbidden"; see WITHOUT_CONTROL_CHARACTERS and DENY_MESSAGE_RULES. */
  readonly message?: string;
  /** When it vanishes by itself (ms since the epoch); absent: until removed. */
  readonly expiresAt?: number;
}
