import type { Logger } from '@nestjs/common';
import type { RateLimitStore, StoreOp, StoreReply } from '../store/rate-limit-store.interface';
import type { RequestGroup } from './request-groups';

/**
 * Several identities' groups, each one store call, sent together. A consume is all-or-nothing
 * across them: when one group rejects or fails, what the admitted ones were charged is given
 * back. Throws the first failure (after sending the refunds).
 */
export async function decideGroups(
  store: RateLimitStore,
  op: StoreOp,
  groups: readonly RequestGroup[],
  nowUs: number | undefined,
  logger: Logger,
): Promise<StoreReply[]> {
  const settled = await Promise.allSettled(groups.map((g) => store.decide(op, g.entries, nowUs)));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    if (op === 'consume') void refund(store, groups, settled, nowUs, logger);
    throw failure.reason;
  }
  const replies = settled.map((s) => (s as PromiseFulfilledResult<StoreReply>).value);
  if (op === 'consume' && replies.some((r) => !r.admitted)) {
    await refund(store, groups, settled, nowUs, logger);
  }
  return replies;
}

/** Gives back what admitted groups were charged; failures are logged, not thrown. */
async function refund(
  store: RateLimitStore,
  groups: readonly RequestGroup[],
  settled: readonly PromiseSettledResult<StoreReply>[],
  nowUs: number | undefined,
  logger: Logger,
): Promise<void> {
  const refunds = groups.flatMap((group, i) => {
    const result = settled[i];
    if (result.status !== 'fulfilled' || !result.value.admitted) return [];
    const { decisions, decidedAtUs, uncharged } = result.value;
    const charged = group.entries.filter((_, j) => decisions[j].allowed && !uncharged?.includes(j));
    return charged.length > 0 ? [store.decide('refund', charged, nowUs, decidedAtUs)] : [];
  });
  const failed = (await Promise.allSettled(refunds)).filter((r) => r.status === 'rejected');
  if (failed.length > 0) {
    logger.warn(`Could not refund ${failed.length} policy group(s) after a rejection`);
  }
}
