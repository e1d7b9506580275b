import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { RateLimitConfig } from '../config/resolve-module-options';
import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { DECISION_OBSERVERS, RATE_LIMIT_CONFIG, RATE_LIMIT_STORE } from '../rate-limit.constants';
import { PolicyRegistry } from '../registry/policy-registry';
import type { RateLimitStore, StoreOp, StoreReply } from '../store/rate-limit-store.interface';
import { BlockedCache, rejectionKey } from './blocked-cache';
import type { DecisionObserver } from './decision-observer';
import { FallbackStore } from './fallback-store';
import { OutageFallback } from './outage-fallback';
import type { DecideOptions, PolicyRequest } from './policy-request';
import { groupRequests, keysOfTags, type RequestGroup } from './request-groups';
import { decideGroups } from './store-calls';
import { perGroup, verdictOf } from './verdict-of';

/**
 * Decides requests: a remembered rejection, else group by identity -> one store call per group
 * -> verdict, refunding admitted groups when another rejects, and `onRedisError` when the store
 * cannot decide; a store in this process decides all groups at once (decideAll). Knows the
 * store only by its interface.
 */
@Injectable()
export class DecisionEngine implements OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly blocked = new BlockedCache();
  private readonly fallback: OutageFallback;
  private readonly observers: DecisionObserver[];

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    private readonly registry: PolicyRegistry,
    private readonly fallbackStore: FallbackStore,
    @Inject(DECISION_OBSERVERS) observers: readonly DecisionObserver[],
  ) {
    this.observers = [...observers];
    this.fallback = new OutageFallback(config.onRedisError, fallbackStore);
    store.onLateReplies?.((groups, replies) => this.fallback.late(groups, replies));
    // A policy change may let remembered rejections through sooner.
    registry.onChange(() => this.forgetRejections());
  }

  /**
   * Every policy of one request, all-or-nothing. A rejection Redis gave these requests is
   * answered from memory while it holds, synchronously: a flood costs no promise and no round
   * trip. Counted by the observers either way.
   */
  decide(
    requests: readonly PolicyRequest[],
    options?: DecideOptions,
  ): RateLimitVerdict | Promise<RateLimitVerdict> {
    // An explicit `now` (tests) is not wall time: remembered rejections do not apply to it.
    const wallTime = options?.nowMs === undefined;
    if (wallTime) {
      const cached = this.remembered(requests);
      if (cached) return cached;
    }
    return this.consume(requests, wallTime, options);
  }

  /** Tells `observer` of every verdict from now on (the planes add theirs when mounted). */
  addObserver(observer: DecisionObserver): void {
    this.observers.push(observer);
  }

  /** Whether any rejection is remembered: while none is (the usual case), nothing can be shed. */
  get remembersRejections(): boolean {
    return this.blocked.size > 0;
  }

  /**
   * The rejection Redis gave these requests, while it holds, counted by the observers as
   * decide() counts it; undefined otherwise. Never asks the store.
   */
  remembered(requests: readonly PolicyRequest[]): RateLimitVerdict | undefined {
    // While nobody is blocked (the usual case) a request builds no cache key at all.
    if (this.blocked.size === 0) return undefined;
    const cached = this.blocked.get(this.rejectionKey(requests), Date.now());
    return cached && this.counted(cached, requests);
  }

  /** The standing under one policy, without charging anything or counting a decision. */
  peek(request: PolicyRequest, options?: DecideOptions): Promise<RateLimitVerdict> {
    return this.run('peek', [request], options);
  }

  /** Forgets the identities' state (every algorithm, block included) in the store and fallback. */
  async reset(policy: RateLimitPolicy, tags: readonly string[]): Promise<void> {
    const keys = keysOfTags(this.config.keys, policy, tags);
    await Promise.all([this.store.delete(keys), this.fallbackStore.delete(keys)]);
    this.forgetRejections();
  }

  /**
   * Forgets what this instance holds of identities another instance reset: their state in the
   * memory fallback, and remembered rejections.
   */
  async forgetIdentities(policyName: string, tags: readonly string[]): Promise<void> {
    this.forgetRejections();
    const policy = this.registry.get(policyName);
    if (policy) await this.fallbackStore.delete(keysOfTags(this.config.keys, policy, tags));
  }

  forgetRejections(): void {
    this.blocked.clear();
  }

  onModuleDestroy(): void {
    this.fallback.close();
  }

  /** One chain step from the store's reply to the counted verdict (no await of its own). */
  private consume(
    requests: readonly PolicyRequest[],
    wallTime: boolean,
    options?: DecideOptions,
  ): Promise<RateLimitVerdict> {
    const nowMs = Date.now();
    return this.run('consume', requests, options, nowMs, (verdict) => {
      if (wallTime && !verdict.allowed) {
        this.blocked.remember(this.rejectionKey(requests), verdict, nowMs);
      }
      return this.counted(verdict, requests);
    });
  }

  /**
   * `startedMs`: when the decision began (what the outage fallback dates its notes by);
   * `finish`: applied to the verdict in the same step.
   */
  private run(
    op: StoreOp,
    requests: readonly PolicyRequest[],
    options?: DecideOptions,
    startedMs = Date.now(),
    finish: (verdict: RateLimitVerdict) => RateLimitVerdict = same,
  ): Promise<RateLimitVerdict> {
    const nowUs = options?.nowMs === undefined ? undefined : Math.floor(options.nowMs * 1000);
    let groups: RequestGroup[];
    try {
      groups = groupRequests(this.config.keys, requests);
    } catch (error) {
      // A policy twice for one identity: a rejection, as from an async function.
      return Promise.reject(error);
    }
    const { store } = this;
    if (store.decideAll) {
      return store
        .decideAll(
          op,
          groups.map((g) => g.entries),
          nowUs,
        )
        .then((reply) =>
          finish(verdictOf(requests, groups, perGroup(groups, reply), store.source)),
        );
    }
    const decided = (replies: StoreReply[]): RateLimitVerdict => {
      this.fallback.decided(op, groups, replies, startedMs);
      return finish(verdictOf(requests, groups, replies, store.source));
    };
    const failed = (error: Error): RateLimitVerdict =>
      finish(this.fallback.decide(op, requests, groups, error, nowUs, startedMs));
    // The usual case, one identity: one store call and nothing to refund, answered in the same
    // microtask turn as the store's reply.
    if (groups.length === 1) {
      return store.decide(op, groups[0].entries, nowUs).then((reply) => decided([reply]), failed);
    }
    return decideGroups(store, op, groups, nowUs, this.logger).then(decided, failed);
  }

  private counted(verdict: RateLimitVerdict, requests: readonly PolicyRequest[]): RateLimitVerdict {
    for (const observer of this.observers) observer.observe(verdict, requests);
    return verdict;
  }

  private rejectionKey(requests: readonly PolicyRequest[]): string {
    return rejectionKey(requests, this.config.keys.identityTag);
  }
}

const same = (verdict: RateLimitVerdict): RateLimitVerdict => verdict;
