import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import type { HeaderStyle } from '../config/rate-limit-module-options.interface';

export const toSeconds = (ms: number): number => Math.ceil(ms / 1000);

/**
 * The decision the headers describe: a rejecting enforced policy (one that can never pass, else
 * the longest wait) if any, otherwise the enforced one with the fewest units left (the latest
 * reset on a tie), shadow policies last.
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
  if (aRejects) {
    // A request that can never pass says so, whatever another policy's wait.
    const aNever = neverAdmitted(a);
    if (aNever !== neverAdmitted(b)) return aNever ? -1 : 1;
    return b.retryAfterMs - a.retryAfterMs;
  }
  // Shadow policies do not limit the client, so an enforced one describes it first.
  if (a.shadow !== b.shadow) return a.shadow ? 1 : -1;
  if (a.remaining !== b.remaining) return a.remaining - b.remaining;
  return b.resetMs - a.resetMs;
}

/** A cost above capacity, or a client denied: waiting does not help. */
function neverAdmitted(d: RateLimitDecision): boolean {
  return d.reason === 'cost-exceeds-capacity' || d.reason === 'denied';
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

/**
 * Every header a verdict's response carries: those of the decision shown and, on a rejection
 * with a wait, Retry-After. The guard's and the shedder's 429s are alike by sharing this.
 */
export function verdictHeaders(
  style: HeaderStyle,
  verdict: RateLimitVerdict,
  shown: RateLimitDecision,
): [string, string][] {
  const headers = rateLimitHeaders(style, shown);
  if (!verdict.allowed && shown.retryAfterMs > 0) {
    headers.push(['Retry-After', String(toSeconds(shown.retryAfterMs))]);
  }
  return headers;
}
