import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { InstanceStanding, StandingSource } from './instance-standing';
import { clockUs, type MemoryStore } from '../store/memory/memory-store';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { capacityOf } from '../policy/rate-limit-algorithm';
import type { StoreEntry, StoreOp, StoreReply } from '../store/rate-limit-store.interface';
import { REASON } from '../store/reason-code';
import { storeDecision } from '../store/store-decision';
import { sharedPolicy } from './outage-share';
import { RedisRemaining } from './redis-remaining';

interface Shared {
  readonly standing: InstanceStanding;
  readonly policy: RateLimitPolicy;
}

/** Client keys whose last Redis reply is remembered for the fallback. */
const DEFAULT_REMEMBERED_KEYS = 100_000;

/**
 * The memory fallback of `onRedisError: 'memory'`: while Redis is unreachable, each instance
 * decides on its own, with its share of every limit (see outage-share.ts), so that the live
 * instances together admit about the limit instead of the limit each. For a client key Redis
 * answered about, the share is of what Redis last said was left (see redis-remaining.ts).
 */
export class FallbackStore {
  /** Per policy object (a new one on every override), the shared version for a standing. */
  private readonly shared = new WeakMap<RateLimitPolicy, Shared>();
  private readonly remaining: RedisRemaining;

  constructor(
    /** Where the fallback's own decisions are kept. */
    readonly memory: MemoryStore,
    private readonly heartbeat: StandingSource,
    /** A fixed share of each threshold; undefined: 1 / the live instances. */
    private readonly fraction: number | undefined,
    rememberedKeys = DEFAULT_REMEMBERED_KEYS,
  ) {
    this.remaining = new RedisRemaining(rememberedKeys);
  }

  /** Remembers what Redis said is left of each key after a consume call. */
  note(entries: readonly StoreEntry[], reply: StoreReply, askedAtMs?: number): void {
    this.remaining.note(entries, reply, askedAtMs);
  }

  /** Counts what Redis answered after the call had timed out (see RedisRemaining.noteLate). */
  noteLate(entries: readonly StoreEntry[], reply: StoreReply): void {
    this.remaining.noteLate(entries, reply);
  }

  /**
   * Decides at once, without a promise: the requests of a burst fail together (their timeouts
   * end on one timer), and each must see what the ones before it admitted from the share.
   * `outageSinceMs`: when Redis stopped answering (the start of the first call that failed).
   */
  decide(
    op: StoreOp,
    entries: readonly StoreEntry[],
    nowUs: number = clockUs(),
    outageSinceMs: number = Date.now(),
  ): StoreReply {
    const shared = entries.map((entry) => ({ ...entry, policy: this.policyFor(entry.policy) }));
    // A refund never reaches the fallback: it decides every group of a request in one call.
    if (op !== 'consume') return configured(entries, this.memory.decideSync(op, shared, nowUs));
    const standing = this.heartbeat.standing;
    const allowances = entries.map((e) =>
      e.policy.mode === 'shadow'
        ? undefined
        : this.remaining.allowance(e.key, standing, this.fraction, outageSinceMs),
    );
    const short = allowances.findIndex((a, i) => a !== undefined && a < entries[i].cost);
    if (short !== -1) {
      // Nothing is charged: this policy's share of what Redis left is used up.
      const { decisions, decidedAtUs } = configured(
        entries,
        this.memory.decideSync('peek', shared, nowUs),
      );
      return {
        admitted: false,
        decidedAtUs,
        decisions: decisions.map((d, i) =>
          i === short ? this.exhausted(entries[i], allowances[i]!) : d,
        ),
      };
    }
    const reply = configured(entries, this.memory.decideSync('consume', shared, nowUs));
    if (!reply.admitted) return reply;
    return {
      ...reply,
      decisions: reply.decisions.map((d, i) => {
        const allowance = allowances[i];
        if (allowance === undefined || !d.allowed) return d;
        this.remaining.spend(entries[i].key, entries[i].cost);
        return { ...d, remaining: Math.min(d.remaining, allowance - entries[i].cost) };
      }),
    };
  }

  /** Whether the fallback holds anything about the key (its own state, or what Redis said). */
  holds(key: string): boolean {
    return this.remaining.has(key) || this.memory.keyspace.get(key) !== undefined;
  }

  delete(keys: readonly string[]): Promise<void> {
    this.remaining.delete(keys);
    return this.memory.delete(keys);
  }

  close(): void {
    this.memory.close();
  }

  private exhausted(entry: StoreEntry, allowance: number): RateLimitDecision {
    const waitMs = this.remaining.resetMs(entry.key);
    return storeDecision(entry, 'memory', Math.max(0, allowance), waitMs, waitMs, REASON.limit);
  }

  private policyFor(policy: RateLimitPolicy): RateLimitPolicy {
    const standing = this.heartbeat.standing;
    const known = this.shared.get(policy);
    if (known?.standing === standing) return known.policy;
    const shared = sharedPolicy(policy, standing, this.fraction);
    this.shared.set(policy, { standing, policy: shared });
    return shared;
  }
}

/**
 * The memory store's reply on the shared policies, reported with each policy's configured
 * capacity as its limit (as Redis reports it), unless a quota override set the limit.
 */
function configured(entries: readonly StoreEntry[], reply: StoreReply): StoreReply {
  const decisions = reply.decisions.map((d, i) => {
    const limit = capacityOf(entries[i].policy);
    return d.clientOverride === 'quota' || d.limit === limit ? d : { ...d, limit };
  });
  return { ...reply, decisions };
}
