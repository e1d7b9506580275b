import { performance } from 'node:perf_hooks';
import {
  Inject,
  Injectable,
  Optional,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { ResolvedAdaptiveOptions } from '../../adaptive/adaptive-options';
import { LOCAL_TICK_MS } from '../../adaptive/local-shedding';
import type { RateLimitConfig } from '../../config/resolve-module-options';
import type { RateLimitVerdict } from '../../decision/rate-limit-decision.interface';
import { DecisionEngine } from '../../engine/decision-engine';
import type { PolicyRequest } from '../../engine/policy-request';
import { AdaptiveMetrics } from '../../metrics/adaptive-metrics';
import { RateLimitMetrics } from '../../metrics/rate-limit-metrics';
import {
  BACKGROUND_TIMEOUT_MS,
  RATE_LIMIT_CHANNEL,
  RATE_LIMIT_CONFIG,
} from '../../rate-limit.constants';
import { RedisConnection } from '../../store/redis/redis-connection';
import { InstanceHeartbeat } from '../instance-heartbeat.service';
import type { PolicyChannel } from '../policy-channel';
import { ADAPTIVE_AUDIT_POLICY } from '../audit/audit-entry';
import { ChangeTrail } from '../audit/change-trail';
import { AdaptiveBeat } from './adaptive-beat';
import { AdaptiveProtection } from './adaptive-protection';
import { AdaptiveRequests, adaptiveTierName, type AdaptiveShed } from './adaptive-requests';
import { cpuQuotaCores } from './cpu-quota';
import { LoadSampler } from './load-sampler';
import { ADAPTIVE_LOAD_SOURCE, type LoadSource } from './load-source';

/**
 * Adaptive protection in the running application (SPEC section 15). Mode 'off' (the default)
 * runs nothing: no timer, sampler or Redis command; the guard skips it on one property read.
 * Otherwise a timer ticks every LOCAL_TICK_MS (Node's signals into the local loop; each second a
 * heartbeat to and from the fleet loop); the guard asks `adjust()` for each request, in memory.
 */
@Injectable()
export class AdaptiveLimits implements OnApplicationBootstrap, OnModuleDestroy {
  /** False with mode 'off': the guard never calls the rest. */
  readonly active: boolean;
  readonly options: ResolvedAdaptiveOptions;
  private protection: AdaptiveProtection | undefined;
  private requests: AdaptiveRequests | undefined;
  private sampler: LoadSource | undefined;
  private readonly tickListeners: (() => void)[] = [];
  private metrics: AdaptiveMetrics | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = performance.now();
  private readonly preRouted = new WeakMap<object, PolicyRequest[]>();
  private stopped = false;

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly connection: RedisConnection,
    private readonly heartbeat: InstanceHeartbeat,
    private readonly engine: DecisionEngine,
    private readonly limiterMetrics: RateLimitMetrics,
    @Inject(RATE_LIMIT_CHANNEL) private readonly channel: PolicyChannel,
    private readonly trail: ChangeTrail,
    @Optional() @Inject(ADAPTIVE_LOAD_SOURCE) private readonly source?: LoadSource | null,
  ) {
    this.options = config.adaptive;
    this.active = this.options.mode !== 'off';
  }

  onApplicationBootstrap(): void {
    if (!this.active) return;
    this.protection = new AdaptiveProtection(
      this.options,
      this.heartbeat.id,
      // Its scripts are read here, not at construction: with mode 'off' nothing is.
      new AdaptiveBeat(this.config.keys.prefix),
      () => this.connection.client,
      BACKGROUND_TIMEOUT_MS,
    );
    // Each change of direction, with the signals behind it, into the audit log (when mounted).
    this.protection.onChange(({ previous, direction, summary, ...state }) => {
      void this.trail.record({
        policy: ADAPTIVE_AUDIT_POLICY,
        action: 'adaptive-direction',
        before: { direction: previous ?? null },
        after: { direction, summary, ...state },
        source: 'adaptive',
      });
    });
    const local = this.protection.local;
    this.requests = new AdaptiveRequests(this.options, (tier) => local.dropShare(tier));
    this.sampler = this.source ?? new LoadSampler(cpuQuotaCores());
    this.metrics = new AdaptiveMetrics(this.limiterMetrics.registry);
    // The leader announces each state it writes: taken at once, not at this instance's next beat.
    this.channel.onAdaptiveState((state) => {
      this.protection?.receive(state);
      this.applyMultipliers();
    });
    this.schedule();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.sampler?.stop();
  }

  /** Whether it rejects (enforce) or only computes and reports (shadow). */
  get enforcing(): boolean {
    return this.options.mode === 'enforce';
  }

  /** Whether the local loop rejects some requests now: the shedder looks at nothing otherwise. */
  get dropping(): boolean {
    return this.enforcing && this.protection!.local.level > 0;
  }

  /**
   * The requests to decide, or the one the local loop sheds (counted here, by tier). For `raw`,
   * an HTTP request the shedder adjusted before routing, that (counted once against the share).
   */
  adjust(requests: readonly PolicyRequest[], raw?: object): PolicyRequest[] | AdaptiveShed {
    const early = raw && this.preRouted.get(raw);
    if (early) return early;
    const adjusted = this.requests!.adjust(requests, this.enforcing);
    if (Array.isArray(adjusted)) return adjusted;
    this.metrics!.countRejection(adjusted.tier, 'local', !this.enforcing);
    return this.enforcing ? adjusted : (requests as PolicyRequest[]);
  }

  /** adjust() for the shedder, before routing; the guard then takes what it let through. */
  adjustBeforeRouting(raw: object, requests: PolicyRequest[]): PolicyRequest[] | AdaptiveShed {
    const adjusted = this.adjust(requests);
    if (Array.isArray(adjusted)) this.preRouted.set(raw, adjusted);
    return adjusted;
  }

  /** The verdict of a request it let through, for the fleet loop's weights and the boost. */
  counted(verdict: RateLimitVerdict): void {
    this.protection!.countDecision(!verdict.allowed);
  }

  /** The multiplier of the request's thresholds now: 1 unless its policy opted in. */
  multiplierOf(request: PolicyRequest): number {
    return this.requests!.multiplierOf(request);
  }

  /** Counts a rejection under thresholds the fleet loop lowered. */
  countFleetRejection(request: PolicyRequest): void {
    this.metrics!.countRejection(adaptiveTierName(request), 'fleet', false);
  }

  /** The published state, this instance's loops and the multipliers in force (admin, tests). */
  get snapshot() {
    const loops = this.protection?.snapshot(Date.now());
    return { mode: this.options.mode, leading: false, localLevel: 0, multipliers: {}, ...loops };
  }

  /** Resolves once the next tick (and its heartbeat, every fourth) is done: for tests. */
  nextTick(): Promise<void> {
    return new Promise((resolve) => this.tickListeners.push(resolve));
  }

  /** Takes the multipliers of the state held (enforce only); returns them for the metrics. */
  private applyMultipliers(): Record<string, number> {
    const multipliers = this.protection?.multipliers(Date.now()) ?? {};
    // A limit that rose may let remembered rejections through sooner.
    if (this.enforcing && this.requests!.setMultipliers(multipliers)) {
      this.engine.forgetRejections();
    }
    return multipliers;
  }

  private schedule(): void {
    if (this.stopped) return;
    const dueAt = performance.now() + LOCAL_TICK_MS;
    // A chain of timeouts, not an interval: a slow heartbeat delays the next tick rather than
    // letting ticks pile up, and the delay itself is a signal (the tick's lateness).
    this.timer = setTimeout(() => void this.tick(dueAt), LOCAL_TICK_MS).unref();
  }

  private async tick(dueAt: number): Promise<void> {
    const protection = this.protection!;
    try {
      const signals = this.sampler!.sample(dueAt);
      const uptimeMs = this.sampler!.uptimeMs?.() ?? performance.now() - this.startedAt;
      const { measured } = await protection.tick(signals, Date.now(), uptimeMs);
      // The multipliers just taken, not computed again by snapshot().
      const multipliers = this.applyMultipliers();
      const { state, local, isLeading: leading } = protection;
      this.metrics!.setTick(measured, { state, localLevel: local.level, leading, multipliers });
    } finally {
      for (const listener of this.tickListeners.splice(0)) listener();
      this.schedule();
    }
  }
}
