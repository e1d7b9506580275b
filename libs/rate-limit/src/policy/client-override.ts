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
 * One client's override under one policy. A quota's left-out thresholds are the policy's (or
 * its tier's) at the time of each request; its `burst` follows its own `limit` when it sets one.
 */
export interface ClientOverride {
  readonly action: ClientOverrideAction;
  readonly limit?: number;
  readonly windowMs?: number;
  readonly burst?: number;
  /** `deny` only; default "Forbidden". */
  readonly message?: string;
  /** When it vanishes by itself (ms since the epoch); absent: until removed. */
  readonly expiresAt?: number;
}
