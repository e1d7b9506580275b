import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import { RateLimitStoreError } from '../errors/rate-limit-store.error';
import type { RateLimitConfig } from '../module/resolve-module-options';
import { RATE_LIMIT_ALGORITHMS } from '../policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { RATE_LIMIT_CONFIG, RATE_LIMIT_OVERRIDES, RATE_LIMIT_STORE } from '../rate-limit.constants';
import type { PolicyOverrideStore } from '../runtime/policy-override-store';
import { MAX_LIMIT } from '../policy/policy-limits';
import { PolicyRegistry } from '../registry/policy-registry';
import { RateLimitMetrics } from '../metrics/rate-limit-metrics';
import { PolicyStats } from '../runtime/policy-stats.service';
import type {
  RateLimitStore,
  StoreEntry,
  StoreOp,
  StoreReply,
} from '../store/rate-limit-store.interface';
import { BlockedCache, rejectionKey } from './blocked-cache';
import { FallbackStore } from './fallback-store';
import { toDecision } from './to-decision';

/** One policy to apply to one identity. */
export interface PolicyRequest {
  readonly policy: RateLimitPolicy;
  readonly identity: string;
  readonly cost: number;
}

/** A request whose key tag is already known (admin listing: the tag of a key found by SCAN). */
interface TaggedRequest extends PolicyRequest {
  readonly tag?: string;
}

/** Test-only: decide at this time instead of Redis (or process) time. */
export interface DecideOptions {
  readonly nowMs?: number;
}

interface Group {
  readonly entries: StoreEntry[];
  readonly indexes: number[];
}

/**
 * Decides requests against the store. Policies sharing an identity go to the store in one
 * atomic call; groups of different identities are sent together (pipelined) and refunded when
 * another group rejects. When Redis cannot decide, `onRedisError` chooses the outcome.
 * @publicApi
 */
@Injectable()
export class RateLimiterService implements OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  /** When the first call of the current outage began (ms); undefined while Redis answers. */
  private outageSinceMs?: number;
  private readonly blocked = new BlockedCache();

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    private readonly registry: PolicyRegistry,
    private readonly insurance: FallbackStore,
    private readonly stats: PolicyStats,
    private readonly metrics: RateLimitMetrics,
    @Inject(RATE_LIMIT_OVERRIDES) private readonly overrides: PolicyOverrideStore,
  ) {
    registry.onChange(() => this.forgetRejections());
    this.notes = config.onRedisError === 'memory';
  }

  /** Whether what Redis says is left is kept for the memory fallback (onRedisError 'memory'). */
  private readonly notes: boolean;

  /** Charges `cost` to `identity` under a registered policy. */
  async consume(
    policyName: string,
    identity: string,
    cost = 1,
    options?: DecideOptions,
  ): Promise<RateLimitDecision> {
    if (!Number.isInteger(cost) || cost < 1 || cost > MAX_LIMIT) {
      throw new RangeError(`cost must be an integer from 1 to ${MAX_LIMIT} (got ${cost})`);
    }
    const verdict = await this.decide(
      [{ policy: this.policy(policyName), identity, cost }],
      options,
    );
    return verdict.decisions[0] ?? this.undecided(policyName, verdict);
  }

  /** The identity's current standing, without charging anything. */
  async peek(
    policyName: string,
    identity: string,
    options?: DecideOptions,
  ): Promise<RateLimitDecision> {
    const request = { policy: this.policy(policyName), identity, cost: 0 };
    const verdict = await this.run('peek', [request], options);
    return verdict.decisions[0] ?? this.undecided(policyName, verdict);
  }

  /** Forgets the identity's state and block under the policy, whatever algorithm made it. */
  async reset(policyName: string, identity: string): Promise<void> {
    await this.resetTags(policyName, [this.config.keys.identityTag(identity)]);
  }

  /**
   * reset() by the identity as the admin API lists it: a long identity is listed as the readable
   * form of its hashed key, which encoding it again would not find. Operators only: a client
   * that chose such a form as its own identity must not reach the hashed key through reset().
   */
  async resetListed(policyName: string, listedIdentity: string): Promise<void> {
    await this.resetTags(policyName, this.config.keys.operatorTags(listedIdentity));
  }

  private async resetTags(policyName: string, tags: readonly string[]): Promise<void> {
    const keys = this.keysOf(this.policy(policyName), tags);
    await Promise.all([this.store.delete(keys), this.insurance.delete(keys)]);
    this.forgetRejections();
    // Other instances hold this identity's state in their fallback and remember its rejections.
    await this.overrides.announceReset(policyName, tags);
  }

  /**
   * Forgets what this instance holds of identities another instance reset: their state in the
   * memory fallback, and remembered rejections.
   */
  async forgetIdentities(policyName: string, tags: readonly string[]): Promise<void> {
    this.forgetRejections();
    const policy = this.registry.get(policyName);
    if (policy) await this.insurance.delete(this.keysOf(policy, tags));
  }

  /** Every key an identity may have under a policy, whatever algorithm wrote it. */
  private keysOf(policy: RateLimitPolicy, tags: readonly string[]): string[] {
    return tags.flatMap((tag) =>
      RATE_LIMIT_ALGORITHMS.flatMap((algo) => {
        const key = this.config.keys.stateKey(tag, { ...policy, algo });
        return [key, this.config.keys.blockKey(key)];
      }),
    );
  }

  /** Forgets remembered rejections (a reset or a policy change may let them through sooner). */
  forgetRejections(): void {
    this.blocked.clear();
  }

  /** Every policy of one request, all-or-nothing. */
  async decide(
    requests: readonly PolicyRequest[],
    options?: DecideOptions,
  ): Promise<RateLimitVerdict> {
    // An explicit `now` (tests) is not wall time: the cache of rejections does not apply.
    const cached = options?.nowMs === undefined ? this.cachedRejection(requests) : undefined;
    return cached ?? this.decideUncached(requests, options);
  }

  /**
   * The rejection Redis gave these requests, while it still holds (a flood costs no round trip
   * and no promise); counted in stats and metrics like any decision. Undefined when none.
   */
  cachedRejection(requests: readonly PolicyRequest[]): RateLimitVerdict | undefined {
    // While nobody is blocked (the usual case) a request builds no cache key at all.
    if (this.blocked.size === 0) return undefined;
    const verdict = this.blocked.get(this.rejectionKey(requests), Date.now());
    if (verdict) this.count(verdict);
    return verdict;
  }

  /** Decides in the store, without asking the cache of rejections first. */
  async decideUncached(
    requests: readonly PolicyRequest[],
    options?: DecideOptions,
  ): Promise<RateLimitVerdict> {
    const nowMs = Date.now();
    const verdict = await this.run('consume', requests, options);
    if (options?.nowMs === undefined && !verdict.allowed) {
      this.blocked.remember(this.rejectionKey(requests), verdict, nowMs);
    }
    this.count(verdict);
    return verdict;
  }

  private rejectionKey(requests: readonly PolicyRequest[]): string {
    return rejectionKey(requests, this.config.keys.identityTag);
  }

  private count(verdict: RateLimitVerdict): void {
    this.stats.record(verdict);
    this.metrics.observe(verdict);
  }

  /**
   * The standing under one policy of the identities whose key tags are given (admin listing: a
   * hashed long identity cannot be encoded again from its readable form), without charging.
   * Read in batches on the store's own budget, never through the fallback: a tag whose keys
   * could not be read is undefined; a store that does not answer throws.
   */
  async peekTags(
    policy: RateLimitPolicy,
    tags: readonly string[],
  ): Promise<(RateLimitDecision | undefined)[]> {
    const groups = tags.map((tag) => [this.entry({ policy, identity: tag, tag, cost: 0 })]);
    const replies = await this.store.inspect(groups);
    const source = this.store.kind;
    return replies.map((reply) =>
      reply instanceof Error ? undefined : toDecision(policy, reply.outcomes[0], source),
    );
  }

  onModuleDestroy(): void {
    this.insurance.close();
  }

  private policy(name: string): RateLimitPolicy {
    const policy = this.registry.get(name);
    if (!policy) throw new Error(`Unknown rate limit policy "${name}"`);
    return policy;
  }

  private async run(
    op: StoreOp,
    requests: readonly TaggedRequest[],
    options?: DecideOptions,
  ): Promise<RateLimitVerdict> {
    const nowUs = options?.nowMs === undefined ? undefined : Math.floor(options.nowMs * 1000);
    const groups = this.group(requests);
    if (this.store.kind === 'memory') {
      return this.verdict(
        requests,
        groups,
        [
          await this.store.decide(
            op,
            groups.flatMap((g) => g.entries),
            nowUs,
          ),
        ],
        'memory',
        true,
      );
    }
    if (groups.length === 1) return this.runOneGroup(op, requests, groups, nowUs);
    const startedMs = Date.now();
    const settled = await Promise.allSettled(
      groups.map((g) => this.store.decide(op, g.entries, nowUs)),
    );
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure) {
      if (op === 'consume') void this.refund(groups, settled, nowUs);
      return this.fallback(op, requests, groups, failure.reason as Error, nowUs, startedMs);
    }
    this.recovered();
    const replies = settled.map((s) => (s as PromiseFulfilledResult<StoreReply>).value);
    if (op === 'consume' && this.notes) {
      groups.forEach((group, i) => this.insurance.note(group.entries, replies[i], startedMs));
    }
    if (op === 'consume' && replies.some((r) => !r.admitted)) {
      await this.refund(groups, settled, nowUs);
    }
    return this.verdict(requests, groups, replies, 'redis', false);
  }

  /** The usual case, one identity: one store call and nothing to refund. */
  private async runOneGroup(
    op: StoreOp,
    requests: readonly PolicyRequest[],
    groups: readonly Group[],
    nowUs: number | undefined,
  ): Promise<RateLimitVerdict> {
    let reply: StoreReply;
    const startedMs = Date.now();
    try {
      reply = await this.store.decide(op, groups[0].entries, nowUs);
    } catch (error) {
      return this.fallback(op, requests, groups, error as Error, nowUs, startedMs);
    }
    this.recovered();
    if (op === 'consume' && this.notes) this.insurance.note(groups[0].entries, reply, startedMs);
    return this.verdict(requests, groups, [reply], 'redis', false);
  }

  private group(requests: readonly TaggedRequest[]): Group[] {
    if (requests.length === 1) return [{ entries: [this.entry(requests[0])], indexes: [0] }];
    const byIdentity = new Map<string, Group>();
    requests.forEach((request, index) => {
      let group = byIdentity.get(request.identity);
      if (!group) byIdentity.set(request.identity, (group = { entries: [], indexes: [] }));
      const entry = this.entry(request);
      // Both would be checked against the same state, and together exceed the limit.
      if (group.entries.some((e) => e.key === entry.key)) {
        throw new Error(
          `Rate limit policy "${request.policy.name}" appears twice for one identity in one decision; pass it once with the summed cost`,
        );
      }
      group.entries.push(entry);
      group.indexes.push(index);
    });
    return [...byIdentity.values()];
  }

  private entry({ policy, identity, cost, tag }: TaggedRequest): StoreEntry {
    const key = this.config.keys.stateKey(tag ?? this.config.keys.identityTag(identity), policy);
    return { key, blockKey: this.config.keys.blockKey(key), policy, cost };
  }

  /** Gives back what admitted groups were charged; failures are logged, not thrown. */
  private async refund(
    groups: readonly Group[],
    settled: readonly PromiseSettledResult<StoreReply>[],
    nowUs: number | undefined,
  ): Promise<void> {
    const refunds = groups.flatMap((group, i) => {
      const result = settled[i];
      if (result.status !== 'fulfilled' || !result.value.admitted) return [];
      const { outcomes, decidedAtUs } = result.value;
      const charged = group.entries.filter((_, j) => outcomes[j].allowed);
      return charged.length > 0 ? [this.store.decide('refund', charged, nowUs, decidedAtUs)] : [];
    });
    const failed = (await Promise.allSettled(refunds)).filter((r) => r.status === 'rejected');
    if (failed.length > 0)
      this.logger.warn(`Could not refund ${failed.length} policy group(s) after a rejection`);
  }

  private async fallback(
    op: StoreOp,
    requests: readonly PolicyRequest[],
    groups: readonly Group[],
    error: Error,
    nowUs: number | undefined,
    startedMs: number,
  ): Promise<RateLimitVerdict> {
    if (this.outageSinceMs === undefined) {
      this.outageSinceMs = startedMs;
      this.logger.warn(
        `Redis cannot decide (${error.message}); onRedisError=${this.config.onRedisError}`,
      );
    }
    switch (this.config.onRedisError) {
      case 'open':
        return { allowed: true, decisions: [], source: 'fail-open', storeError: error };
      case 'closed': {
        // Shadow policies only observe: an outage does not turn them into a 503.
        const allowed = requests.every((r) => r.policy.mode === 'shadow');
        return { allowed, decisions: [], source: 'fail-closed', storeError: error };
      }
      case 'memory': {
        const unknownOutcome = error instanceof RateLimitStoreError && error.failure === 'timeout';
        const reply = await this.insurance.decide(
          op,
          groups.flatMap((g) => g.entries),
          nowUs,
          this.outageSinceMs,
          unknownOutcome,
        );
        return { ...this.verdict(requests, groups, [reply], 'memory', true), storeError: error };
      }
    }
  }

  private recovered(): void {
    if (this.outageSinceMs === undefined) return;
    this.outageSinceMs = undefined;
    this.logger.log('Redis decides again');
  }

  /** Maps store replies back to the order of the requests. `flat`: one reply for all groups. */
  private verdict(
    requests: readonly PolicyRequest[],
    groups: readonly Group[],
    replies: readonly StoreReply[],
    source: 'redis' | 'memory',
    flat: boolean,
  ): RateLimitVerdict {
    const decisions: RateLimitDecision[] = new Array(requests.length);
    let offset = 0;
    groups.forEach((group, g) => {
      const reply = flat ? replies[0] : replies[g];
      const base = flat ? offset : 0;
      group.indexes.forEach((index, j) => {
        decisions[index] = toDecision(requests[index].policy, reply.outcomes[base + j], source);
      });
      offset += group.entries.length;
    });
    return { allowed: replies.every((r) => r.admitted), decisions, source };
  }

  private undecided(policy: string, verdict: RateLimitVerdict): RateLimitDecision {
    return {
      policy,
      allowed: verdict.allowed,
      shadow: false,
      limit: 0,
      remaining: 0,
      resetMs: 0,
      retryAfterMs: 0,
      source: verdict.source,
    };
  }
}
