import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import type { StoreReply, StoreSource } from '../store/rate-limit-store.interface';
import type { PolicyRequest } from './policy-request';
import type { RequestGroup } from './request-groups';

/** The store's replies, one per group, as decisions in the order of the requests. */
export function verdictOf(
  requests: readonly PolicyRequest[],
  groups: readonly RequestGroup[],
  replies: readonly StoreReply[],
  source: StoreSource,
): RateLimitVerdict {
  // One identity (the usual request): its group holds every request, in order.
  if (groups.length === 1) {
    const { admitted, decisions } = replies[0];
    return { allowed: admitted, decisions, source };
  }
  const decisions: RateLimitDecision[] = new Array(requests.length);
  let allowed = true;
  for (let g = 0; g < groups.length; g++) {
    const { indexes } = groups[g];
    const reply = replies[g];
    if (!reply.admitted) allowed = false;
    for (let j = 0; j < indexes.length; j++) decisions[indexes[j]] = reply.decisions[j];
  }
  return { allowed, decisions, source };
}

/** One reply for the entries of every group (the fallback decides them at once), per group. */
export function perGroup(groups: readonly RequestGroup[], reply: StoreReply): StoreReply[] {
  if (groups.length === 1) return [reply];
  let from = 0;
  return groups.map((group) => {
    const to = from + group.entries.length;
    const part: StoreReply = {
      admitted: reply.admitted,
      decisions: reply.decisions.slice(from, to),
      decidedAtUs: reply.decidedAtUs,
    };
    const uncharged = reply.uncharged?.filter((i) => i >= from && i < to).map((i) => i - from);
    from = to;
    return uncharged?.length ? { ...part, uncharged } : part;
  });
}
