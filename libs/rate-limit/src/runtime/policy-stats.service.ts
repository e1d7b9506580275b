import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { DecisionCounts } from '../decision/decision-counts';
import { DECISION_OUTCOMES, outcomeOf } from '../decision/decision-outcome';
import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { DecisionObserver } from '../engine/decision-observer';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { BACKGROUND_TIMEOUT_MS, RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import { RedisConnection } from '../store/redis/redis-connection';
import { withTimeout } from '../store/redis/with-timeout';
import { isReplyError } from '../util/ioredis-shapes';

type Counts = DecisionCounts;
const FIELDS = DECISION_OUTCOMES;

const zero = (): Counts => ({ allowed: 0, rejected: 0, shadowRejected: 0 });

/** Totals of a policy, and of each of its tiers that has any. */
export interface PolicyTotals extends Counts {
  readonly tiers: Record<string, Counts>;
}

/** A tier's counts are the fields `tier.<tier>.<outcome>` of the policy's stats hash. */
const TIER_FIELD = /^tier\.([A-Za-z0-9_-]{1,64})\.(allowed|rejected|shadowRejected)$/;

/** A stored total; anything but a whole count (written by hand) reads as 0. */
function count(raw: string | undefined): number {
  return raw !== undefined && /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
}

/**
 * Decision totals per policy across all instances. Requests only bump counters in memory; a
 * timer adds them to `<prefix>:stats:<name>` hashes in Redis (HINCRBY), off the request path.
 */
@Injectable()
export class PolicyStats implements OnApplicationBootstrap, OnModuleDestroy, DecisionObserver {
  /** By policy name, and by `<name>\u0000<tier>` for a tier's share of it. */
  private pending = new Map<string, Counts>();
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly connection: RedisConnection,
  ) {}

  onApplicationBootstrap(): void {
    if (this.connection.client) {
      this.timer = setInterval(() => void this.flush(), this.config.statsFlushMs).unref();
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Counts a consumed request: admitted policies as allowed, rejecting ones by mode. */
  observe(verdict: RateLimitVerdict): void {
    for (const d of verdict.decisions) {
      const field = outcomeOf(d, verdict);
      if (!field) continue;
      this.bump(d.policy, field);
      if (d.tier !== undefined) this.bump(`${d.policy}\u0000${d.tier}`, field);
    }
  }

  private bump(key: string, field: keyof Counts): void {
    let counts = this.pending.get(key);
    if (!counts) this.pending.set(key, (counts = zero()));
    counts[field]++;
  }

  /** Totals across instances, plus what this instance has not flushed yet. */
  async totals(names: readonly string[]): Promise<Map<string, PolicyTotals>> {
    const client = this.connection.client;
    // A stats key of another type (written by hand) reads as no totals, for its policy alone.
    const readOne = (name: string) =>
      client!.hgetall(this.key(name)).catch((error: unknown) => {
        if (isReplyError(error)) return {} as Record<string, string>;
        throw error;
      });
    const stored = client
      ? await withTimeout(Promise.all(names.map(readOne)), BACKGROUND_TIMEOUT_MS)
      : names.map(() => ({}) as Record<string, string>);
    return new Map(
      names.map((name, i) => {
        const local = this.pending.get(name) ?? zero();
        const totals: PolicyTotals = { ...zero(), tiers: Object.create(null) };
        for (const field of FIELDS) totals[field] = count(stored[i][field]) + local[field];
        // A null-prototype record: a hand-written field `tier.__proto__.allowed` stays a tier.
        const tierCounts = (tier: string): Counts =>
          Object.hasOwn(totals.tiers, tier) ? totals.tiers[tier] : (totals.tiers[tier] = zero());
        for (const [field, raw] of Object.entries(stored[i])) {
          const match = TIER_FIELD.exec(field);
          if (match) tierCounts(match[1])[match[2] as keyof Counts] += count(raw);
        }
        for (const [key, counts] of this.pending) {
          if (!key.startsWith(`${name}\u0000`)) continue;
          const tier = tierCounts(key.slice(name.length + 1));
          for (const field of FIELDS) tier[field] += counts[field];
        }
        return [name, totals];
      }),
    );
  }

  /**
   * Adds pending counts to Redis. While Redis is not connected they wait for a later flush; a
   * flush that fails or times out is dropped, since some of its increments may have applied.
   */
  async flush(): Promise<void> {
    const client = this.connection.client;
    if (!client || this.pending.size === 0 || client.status !== 'ready') return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await withTimeout(
        Promise.all(
          [...batch].flatMap(([pendingKey, counts]) => {
            const [name, tier] = pendingKey.split('\u0000');
            return FIELDS.filter((f) => counts[f] > 0).map((f) =>
              client.hincrby(
                this.key(name),
                tier === undefined ? f : `tier.${tier}.${f}`,
                counts[f],
              ),
            );
          }),
        ),
        BACKGROUND_TIMEOUT_MS,
      );
    } catch {
      // Outcome unknown for some increments: keep it simple and do not re-add (never double count).
    }
  }

  private key(name: string): string {
    return `${this.config.keys.prefix}:stats:${name}`;
  }
}
