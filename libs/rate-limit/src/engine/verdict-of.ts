import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import type { StoreReply, StoreSource } from '../store/rate-limit-store.interface';
import type { PolicyRequest } from './policy-request';
import type { RequestGroup } from './request-groups';
import { toDecision } from './to-decision';

/** The store's replies, one per group, as decisions in the order of the requests. */
export function verdictOf(
  requests: readonly PolicyRequest[],
  groups: readonly RequestGroup[],
  replies: readonly StoreReply[],
  source: StoreSource,
): RateLimitVerdict {
  const decisions: RateLimitDecision[] = new Array(requests.length);
  let allowed = true;
  for (let g = 0; g < groups.length; g++) {
    const { indexes } = groups[g];
    const { outcomes, admitted } = replies[g];
    if (!admitted) allowed = false;
    for (let j = 0; j < indexes.length; j++) {
      const index = indexes[j];
      decisions[index] = toDecision(requests[index].policy, outcomes[j], source);
    }
  }
  return { allowed, decisions, source };
}

/** One reply for the entries of every group (the fallback decides them at once), per group. */
export function perGroup(groups: readonly RequestGroup[], reply: StoreReply): StoreReply[] {
  if (groups.length === 1) return [reply];
  let offset = 0;
  return groups.map((group) => {
    const outcomes = reply.outcomes.slice(offset, (offset += group.entries.length));
    return { ...reply, outcomes };
  });
}
