/** `enforce` rejects over-limit requests; `shadow` only reports what it would have rejected. */
export const RATE_LIMIT_MODES = ['enforce', 'shadow'] as const;

/** @publicApi */
export type RateLimitMode = (typeof RATE_LIMIT_MODES)[number];

export function isRateLimitMode(value: unknown): value is RateLimitMode {
  return (RATE_LIMIT_MODES as readonly unknown[]).includes(value);
}
