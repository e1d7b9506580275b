import type { RateLimitReason } from '../decision/rate-limit-decision.interface';

/** Why a store decided as it did, as a small integer (the Lua replies with the same codes). */
export const REASON = {
  admitted: 0,
  limit: 1,
  blocked: 2,
  costAboveCapacity: 3,
  denied: 4,
} as const;

export type ReasonCode = (typeof REASON)[keyof typeof REASON];

/** The reason a decision reports for each code; an admission has none. */
export const REASON_OF_CODE: readonly (RateLimitReason | undefined)[] = [
  undefined,
  'limit',
  'blocked',
  'cost-exceeds-capacity',
  'denied',
];
