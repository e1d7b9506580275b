import { LRUCache } from 'lru-cache';
import type { InstanceStanding } from '../runtime/instance-heartbeat.service';
import type { StoreEntry, StoreReply } from '../store/rate-limit-store.interface';
import { splitOf } from './outage-share';

interface Seen {
  /** What Redis last said was left of the key's capacity, for the whole fleet. */
  remaining: number;
  /** Admitted by this instance's fallback since then. */
  spent: number;
}

/**
 * What Redis last said was left of each client key (bounded, least recently seen dropped first;
 * an entry lasts until the key's reset time). While Redis is away, an instance may admit for a
 * key it has seen only its share of that remainder: if Redis fails in the middle of a burst,
 * the fleet together admits what was left of the limit, not a fresh limit on top of it.
 */
export class RedisRemaining {
  private readonly seen: LRUCache<string, Seen>;

  constructor(maxKeys: number) {
    this.seen = new LRUCache<string, Seen>({ max: maxKeys });
  }

  get size(): number {
    return this.seen.size;
  }

  /** Records a reply of Redis to a consume call. */
  note(entries: readonly StoreEntry[], reply: StoreReply): void {
    for (let i = 0; i < entries.length; i++) {
      const { key, policy } = entries[i];
      if (policy.mode === 'shadow') continue;
      const { remaining, resetMs } = reply.outcomes[i];
      // Nothing to wait for (an idle key, a full bucket): a fresh share applies.
      if (resetMs <= 0) this.seen.delete(key);
      else this.seen.set(key, { remaining, spent: 0 }, { ttl: resetMs });
    }
  }

  /**
   * What this instance may still admit for the key on its own, or undefined when Redis has said
   * nothing about it that still holds.
   */
  allowance(
    key: string,
    standing: InstanceStanding,
    fraction: number | undefined,
  ): number | undefined {
    const seen = this.seen.get(key);
    return seen && splitOf(seen.remaining, standing, fraction) - seen.spent;
  }

  /** Milliseconds until the key's last known reset. */
  resetMs(key: string): number {
    return Math.max(1, Math.ceil(this.seen.getRemainingTTL(key)));
  }

  has(key: string): boolean {
    return this.seen.has(key);
  }

  spend(key: string, cost: number): void {
    const seen = this.seen.get(key);
    if (seen) seen.spent += cost;
  }

  delete(keys: readonly string[]): void {
    for (const key of keys) this.seen.delete(key);
  }
}
