import { Logger } from '@nestjs/common';
import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { OnRedisError } from '../config/rate-limit-module-options.interface';
import type { StoreEntry, StoreOp, StoreReply } from '../store/rate-limit-store.interface';
import type { FallbackStore } from './fallback-store';
import type { PolicyRequest } from './policy-request';
import type { RequestGroup } from './request-groups';
import { perGroup, verdictOf } from './verdict-of';

/**
 * What a request gets while the store cannot decide (`onRedisError`), and what is kept while it
 * can for the next outage: in `memory` mode, what Redis said was left per client.
 */
export class OutageFallback {
  private readonly logger = new Logger('RateLimit');
  /** When the first call of the current outage began (ms); undefined while Redis answers. */
  private outageSinceMs?: number;
  private readonly notes: boolean;

  constructor(
    private readonly mode: OnRedisError,
    private readonly fallbackStore: FallbackStore,
  ) {
    this.notes = mode === 'memory';
  }

  /** The store decided again: ends the outage, and notes what a consume left. */
  decided(
    op: StoreOp,
    groups: readonly RequestGroup[],
    replies: readonly StoreReply[],
    startedMs: number,
  ): void {
    if (this.outageSinceMs !== undefined) {
      this.outageSinceMs = undefined;
      this.logger.log('Redis decides again');
    }
    if (op !== 'consume' || !this.notes) return;
    for (let g = 0; g < groups.length; g++) {
      this.fallbackStore.note(groups[g].entries, replies[g], startedMs);
    }
  }

  /**
   * Redis answered a consume call after it had timed out: it did admit or refuse those groups,
   * which what this instance remembers for the outage must count (their requests were decided
   * here meanwhile). The outage itself goes on until a call is answered in time.
   */
  late(groups: readonly (readonly StoreEntry[])[], replies: readonly (StoreReply | Error)[]): void {
    if (!this.notes) return;
    for (let g = 0; g < groups.length; g++) {
      const reply = replies[g];
      if (!(reply instanceof Error)) this.fallbackStore.noteLate(groups[g], reply);
    }
  }

  decide(
    op: StoreOp,
    requests: readonly PolicyRequest[],
    groups: readonly RequestGroup[],
    error: Error,
    nowUs: number | undefined,
    startedMs: number,
  ): RateLimitVerdict {
    if (this.outageSinceMs === undefined) {
      this.outageSinceMs = startedMs;
      this.logger.warn(`Redis cannot decide (${error.message}); onRedisError=${this.mode}`);
    }
    switch (this.mode) {
      case 'open':
        return { allowed: true, decisions: [], source: 'fail-open', storeError: error };
      case 'closed': {
        // Shadow policies only observe: an outage does not turn them into a 503.
        const allowed = requests.every((r) => r.policy.mode === 'shadow');
        return { allowed, decisions: [], source: 'fail-closed', storeError: error };
      }
      case 'memory': {
        const reply = this.fallbackStore.decide(
          op,
          groups.flatMap((g) => g.entries),
          nowUs,
          this.outageSinceMs,
        );
        const verdict = verdictOf(requests, groups, perGroup(groups, reply), 'memory');
        return { ...verdict, storeError: error };
      }
    }
  }

  close(): void {
    this.fallbackStore.close();
  }
}
