import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import type { PolicyRequest } from '../engine/policy-request';
import { capacityOf } from '../policy/rate-limit-algorithm';
import type { AdaptiveLimits } from '../runtime/adaptive/adaptive-limits.service';
import type { AdaptiveShed } from '../runtime/adaptive/adaptive-requests';

type Verdict = RateLimitVerdict | Promise<RateLimitVerdict>;

/** How soon a client the local loop shed may try again: the loop moves every 250 ms. */
const SHED_RETRY_MS = 1_000;

/**
 * One request's verdict with adaptive protection on: the local loop may shed it before it is
 * decided; otherwise it is decided on its tier's effective thresholds, counted for the fleet
 * loop, and a rejection under lowered thresholds says so (reason 'adaptive').
 */
export function adaptiveVerdict(
  adaptive: AdaptiveLimits,
  requests: readonly PolicyRequest[],
  decide: (requests: readonly PolicyRequest[]) => Verdict,
  raw?: object,
): Verdict {
  const adjusted = adaptive.adjust(requests, raw);
  if (!Array.isArray(adjusted)) return adaptiveShedVerdict(adaptive, adjusted);
  const verdict = decide(adjusted);
  return verdict instanceof Promise
    ? verdict.then((decided) => adaptiveConclusion(adaptive, adjusted, decided))
    : adaptiveConclusion(adaptive, adjusted, verdict);
}

/** A decided verdict counted for the fleet loop; a rejection under lowered thresholds says so. */
export function adaptiveConclusion(
  adaptive: AdaptiveLimits,
  requests: readonly PolicyRequest[],
  verdict: RateLimitVerdict,
): RateLimitVerdict {
  adaptive.counted(verdict);
  if (verdict.allowed) return verdict;
  let marked = false;
  const decisions = verdict.decisions.map((d) => {
    if (d.allowed || d.shadow || d.reason !== 'limit') return d;
    const request = requests.find((r) => r.policy.name === d.policy);
    if (!request || adaptive.multiplierOf(request) >= 1) return d;
    adaptive.countFleetRejection(request);
    marked = true;
    return { ...d, reason: 'adaptive' as const };
  });
  return marked ? { ...verdict, decisions } : verdict;
}

/** A rejection nobody stored: headers give the policy's effective capacity, nothing remaining. */
export function adaptiveShedVerdict(
  adaptive: AdaptiveLimits,
  shed: AdaptiveShed,
): RateLimitVerdict {
  const policy = shed.request.policy;
  const decision: RateLimitDecision = {
    policy: policy.name,
    allowed: false,
    shadow: false,
    limit: Math.max(1, Math.round(capacityOf(policy) * adaptive.multiplierOf(shed.request))),
    remaining: 0,
    resetMs: SHED_RETRY_MS,
    retryAfterMs: SHED_RETRY_MS,
    reason: 'adaptive',
    ...(policy.tier === undefined ? {} : { tier: policy.tier }),
    // Decided in this process, from its own load.
    source: 'memory',
  };
  return { allowed: false, decisions: [decision], source: 'memory' };
}
