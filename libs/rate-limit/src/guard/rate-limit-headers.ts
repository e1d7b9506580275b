import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import type { HeaderStyle } from '../module/rate-limit-module-options.interface';

export const toSeconds = (ms: number): number => Math.ceil(ms / 1000);

/**
 * The decision the headers describe: a rejecting enforced policy (the longest wait) if any,
 * otherwise the one with the fewest units left (the latest reset on a tie).
 */
export function mostRestrictive(
  decisions: readonly RateLimitDecision[],
): RateLimitDecision | undefined {
  let chosen: RateLimitDecision | undefined;
  for (const d of decisions) {
    if (!chosen || rank(d, chosen) < 0) chosen = d;
  }
  return chosen;
}

function rank(a: RateLimitDecision, b: RateLimitDecision): number {
  const aRejects = !a.allowed && !a.shadow;
  const bRejects = !b.allowed && !b.shadow;
  if (aRejects !== bRejects) return aRejects ? -1 : 1;
  if (aRejects) return b.retryAfterMs - a.retryAfterMs;
  if (a.remaining !== b.remaining) return a.remaining - b.remaining;
  return b.resetMs - a.resetMs;
}

/** Header name/value pairs for one decision in the chosen style. */
export function rateLimitHeaders(style: HeaderStyle, d: RateLimitDecision): [string, string][] {
  switch (style) {
    case 'none':
      return [];
    case 'standard':
      return [
        ['RateLimit-Limit', String(d.limit)],
        ['RateLimit-Remaining', String(d.remaining)],
        ['RateLimit-Reset', String(toSeconds(d.resetMs))],
      ];
    case 'ietf-draft': {
      // Structured fields (draft-ietf-httpapi-ratelimit-headers): the policy name is a String item.
      const name = JSON.stringify(d.policy);
      return [
        ['RateLimit-Policy', `${name};q=${d.limit}`],
        ['RateLimit', `${name};r=${d.remaining};t=${toSeconds(d.resetMs)}`],
      ];
    }
  }
}
