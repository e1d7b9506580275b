import { LRUCache } from 'lru-cache';
import type { InstanceStanding } from './instance-standing';
import type { StoreEntry, StoreReply } from '../store/rate-limit-store.interface';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { capacityOf, unitsHeldMs } from '../policy/rate-limit-algorithm';
import { leftShareOf, splitOf } from './outage-share';

interface Seen {
  /** What Redis last said was left of the key's capacity, for the whole fleet. */
  remaining: number;
  /** When the call that got that reply began (ms): the latest the remainder surely held. */
  atMs: number;
  /** The first reply of the current run of falling remainders: the fleet's pace since then. */
  fromRemaining: number;
  fromMs: number;
  /** The key's policy when last noted: its capacity and how long admissions stay counted. */
  policy: RateLimitPolicy;
  /** Admitted by Redis for this instance since the run began (its own part of the run). */
  admitted: number;
  /** What was probably left when Redis stopped answering; set at the first fallback decision. */
  leftAtOutage?: number;
  /** Admitted by this instance's fallback in the run (in any spell without Redis). */
  spent: number;
  /** The key's reset as Redis last said (this process's clock, ms): forgotten after it. */
  expiresAtMs: number;
}

/**
 * What Redis last said was left of each client key (bounded, least recently seen dropped first;
 * an entry lasts until the key's reset time). While Redis is away, an instance may admit for a
 * key it has seen only its share of that remainder: if Redis fails in the middle of a burst,
 * the fleet together admits what was left of the limit, not a fresh limit on top of it.
 *
 * An instance's last reply is older than the outage by a few milliseconds, in which the other
 * instances went on admitting: the remainder is lowered by the fleet's pace (as the remainders
 * this instance saw fall) over that gap.
 */
export class RedisRemaining {
  private readonly seen: LRUCache<string, Seen>;

  constructor(
    maxKeys: number,
    private readonly clockMs: () => number = Date.now,
  ) {
    // Expiry is kept in each entry and checked where it is read (live()): the cache's own TTLs
    // read the clock and arm a timer on the request path.
    this.seen = new LRUCache<string, Seen>({ max: maxKeys });
  }

  /**
   * The key's entry unless its reset has passed; read as recently used. A passed entry stays
   * until it is written again or evicted: never deleted on the request path, because lru-cache
   * clears itself when its last entry is deleted, filling arrays of `maxKeys` slots (one client
   * of a bucket refilled between its requests paid that on every request: 5 % of an
   * application's CPU with the default 100,000).
   */
  private live(key: string, nowMs = this.clockMs()): Seen | undefined {
    const seen = this.seen.get(key);
    return seen === undefined || seen.expiresAtMs > nowMs ? seen : undefined;
  }

  /**
   * Records a reply of Redis to a consume call that began at `askedAtMs`: the time the reply is
   * read may be much later on a busy process, and the pace extrapolation starts from it.
   */
  note(
    entries: readonly StoreEntry[],
    reply: StoreReply,
    askedAtMs: number = this.clockMs(),
  ): void {
    const atMs = askedAtMs;
    const nowMs = this.clockMs();
    for (let i = 0; i < entries.length; i++) {
      const { key, policy } = entries[i];
      if (policy.mode === 'shadow') continue;
      const { remaining, resetMs, allowed } = reply.decisions[i];
      // Nothing to wait for (an idle key, a full bucket): a fresh share applies. Marked passed
      // rather than deleted (see live()).
      if (resetMs <= 0) {
        const last = this.seen.peek(key);
        if (last) last.expiresAtMs = Number.NEGATIVE_INFINITY;
        continue;
      }
      const admitted = reply.admitted && allowed ? entries[i].cost : 0;
      const last = this.live(key, nowMs);
      // A remainder that grew (a refill, a new window, a reset) starts a new run.
      if (last === undefined || remaining > last.remaining) {
        this.seen.set(key, {
          remaining,
          atMs,
          fromRemaining: remaining,
          fromMs: atMs,
          policy,
          admitted,
          spent: 0,
          expiresAtMs: nowMs + resetMs,
        });
        continue;
      }
      // The run goes on: updated in place (this runs on every decision), keeping where the run
      // began and what the fallback admitted in an earlier spell of it (Redis never heard of
      // those); the remainder at the next outage is estimated afresh.
      last.remaining = remaining;
      last.atMs = atMs;
      last.policy = policy;
      last.admitted += admitted;
      last.leftAtOutage = undefined;
      last.expiresAtMs = nowMs + resetMs;
    }
  }

  /**
   * Records Redis's reply to a consume call that had timed out: Redis admitted (or refused)
   * those requests after all. A key's admissions and remainder are updated in place, what this
   * instance admitted on its own meanwhile is kept (those are not in Redis); a key with nothing
   * remembered is noted as a reply in time would be.
   */
  noteLate(entries: readonly StoreEntry[], reply: StoreReply): void {
    for (let i = 0; i < entries.length; i++) {
      const { key, policy, cost } = entries[i];
      if (policy.mode === 'shadow') continue;
      const seen = this.live(key);
      if (!seen) {
        this.note([entries[i]], { ...reply, decisions: [reply.decisions[i]] });
        continue;
      }
      const { remaining, allowed } = reply.decisions[i];
      if (reply.admitted && allowed) seen.admitted += cost;
      if (remaining < seen.remaining) seen.remaining = remaining;
      if (seen.leftAtOutage !== undefined && remaining < seen.leftAtOutage) {
        seen.leftAtOutage = remaining;
      }
    }
  }

  /**
   * What this instance may still admit for the key on its own, or undefined when Redis has said
   * nothing about it that still holds. `outageSinceMs`: when Redis stopped answering this
   * instance.
   *
   * Also at most this instance's split of the capacity less what Redis admitted for it in the
   * run: its last reply can be far behind the others' (a busy process reads replies late, a
   * single reply shows no pace), while what it admitted itself is exact. With requests spread
   * over the instances, the fleet then admits at most the capacity. Only while the run is
   * recent enough that what it admitted is still counted (unitsHeldMs): one older than that at
   * the outage (a client draining a bucket slower than it refills) has had some of it refilled
   * or expired.
   */
  allowance(
    key: string,
    standing: InstanceStanding,
    fraction: number | undefined,
    outageSinceMs: number,
  ): number | undefined {
    const seen = this.live(key);
    if (!seen) return undefined;
    seen.leftAtOutage ??= leftAt(seen, outageSinceMs);
    const share = leftShareOf(seen.leftAtOutage, standing, fraction);
    const ownPart =
      outageSinceMs - seen.fromMs < unitsHeldMs(seen.policy)
        ? splitOf(capacityOf(seen.policy), standing, fraction) - seen.admitted
        : share;
    return Math.min(share, ownPart) - seen.spent;
  }

  /** Milliseconds until the key's last known reset. */
  resetMs(key: string): number {
    const seen = this.live(key);
    return seen ? Math.max(1, Math.ceil(seen.expiresAtMs - this.clockMs())) : 1;
  }

  has(key: string): boolean {
    const seen = this.seen.peek(key);
    return seen !== undefined && seen.expiresAtMs > this.clockMs();
  }

  spend(key: string, cost: number): void {
    const seen = this.live(key);
    if (seen) seen.spent += cost;
  }

  delete(keys: readonly string[]): void {
    for (const key of keys) this.seen.delete(key);
  }
}

/**
 * The remainder at `outageMs`, had the fleet gone on at the pace this instance saw, for no longer
 * than it was seen going (a client that stopped long before the outage is not extrapolated).
 */
function leftAt(seen: Seen, outageMs: number): number {
  const runMs = seen.atMs - seen.fromMs;
  if (runMs <= 0 || outageMs <= seen.atMs) return seen.remaining;
  const perMs = (seen.fromRemaining - seen.remaining) / runMs;
  const gapMs = Math.min(outageMs - seen.atMs, runMs);
  return Math.max(0, Math.floor(seen.remaining - perMs * gapMs));
}
