import { RateLimitStoreError } from '../../errors/rate-limit-store.error';
import type { LateRepliesListener, StoreEntry } from '../rate-limit-store.interface';
import { parseDecideReply } from './decide-call';

/**
 * Hands a timed-out consume call's reply, should Redis still send it, to `listener`: Redis did
 * decide those groups, and the outage fallback counts what it admitted.
 */
export function watchLateReply(
  error: unknown,
  groups: readonly (readonly StoreEntry[])[],
  listener: LateRepliesListener,
): void {
  const late = error instanceof RateLimitStoreError ? error.late : undefined;
  if (!late) return;
  // A reply that is not a decide reply (SCRIPT LOAD's, after NOSCRIPT) decided nothing; a
  // command that fails late was expected to, and is no request's concern any more.
  late.then((reply) => listener(groups, parseDecideReply(reply, groups))).catch(() => undefined);
}
