import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { RateLimitConfig } from '../../config/resolve-module-options';
import type { DecisionCounts } from '../../decision/decision-counts';
import { DECISION_OUTCOMES, outcomeOf } from '../../decision/decision-outcome';
import type { RateLimitVerdict } from '../../decision/rate-limit-decision.interface';
import type { DecisionObserver } from '../../engine/decision-observer';
import type { PolicyRequest } from '../../engine/policy-request';
import { RATE_LIMIT_CONFIG, RATE_LIMIT_TRAFFIC } from '../../rate-limit.constants';
import { RejectedClients } from './rejected-clients';
import { BUCKET_MS, SERIES_SPAN_MS, bucketOf } from './traffic-buckets';
import {
  MINUTE_MS,
  REJECTED_SPAN_MS,
  TrafficStoreNotReady,
  type BucketCounts,
  type SeriesColumns,
  type TrafficStore,
} from './traffic-store';

/** Identities each instance sends per policy and flush; Redis merges them into a top-k. */
const TOP_PER_FLUSH = 20;

/** The traffic of a few policies over the last minutes, as the dashboard charts it. */
export interface TrafficSeries {
  readonly bucketMs: number;
  /** Start of the first bucket (epoch ms). */
  readonly start: number;
  /** Now (epoch ms): the last bucket, in progress, covers its start to here. */
  readonly end: number;
  readonly policies: Map<string, SeriesColumns>;
}

/**
 * Records what the dashboard shows: each policy's decisions per 10 s bucket, and the identities
 * it rejected most. Requests only bump counters in memory (no promise, no I/O); a timer on the
 * stats flush interval adds them to the traffic store, where every instance's counts are summed.
 * Shadow rejections count among the rejected clients (who would be limited).
 */
@Injectable()
export class TrafficRecorder implements DecisionObserver, OnApplicationBootstrap, OnModuleDestroy {
  private pending = new Map<number, Map<string, DecisionCounts>>();
  private rejected = new RejectedClients();
  private timer?: NodeJS.Timeout;
  private flushedAt: number | null = null;

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    @Inject(RATE_LIMIT_TRAFFIC) private readonly store: TrafficStore,
  ) {}

  /** When this instance last added its counts to the store (epoch ms), if ever. */
  get lastFlushAt(): number | null {
    return this.flushedAt;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.flush(), this.config.statsFlushMs).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  observe(verdict: RateLimitVerdict, requests?: readonly PolicyRequest[]): void {
    const decisions = verdict.decisions;
    let byPolicy: Map<string, DecisionCounts> | undefined;
    for (let i = 0; i < decisions.length; i++) {
      const outcome = outcomeOf(decisions[i], verdict);
      if (!outcome) continue;
      byPolicy ??= this.bucket(bucketOf(Date.now()));
      const policy = decisions[i].policy;
      let counts = byPolicy.get(policy);
      if (!counts) byPolicy.set(policy, (counts = { allowed: 0, rejected: 0, shadowRejected: 0 }));
      counts[outcome]++;
      if (outcome !== 'allowed' && requests?.[i]) this.rejected.add(policy, requests[i].identity);
    }
  }

  /**
   * Adds what was recorded to the store. A write that fails or times out is dropped (some of
   * its increments may have applied: never counted twice); the next flush goes on.
   */
  async flush(): Promise<void> {
    const pending = this.pending;
    const rejected = this.rejected.take(TOP_PER_FLUSH);
    this.pending = new Map();
    const series: BucketCounts[] = [];
    for (const [bucket, byPolicy] of pending) {
      for (const [policy, counts] of byPolicy) series.push({ policy, bucket, counts });
    }
    // Raw identities never leave the process: the store gets them as the admin API lists them.
    const keys = this.config.keys;
    const listed = new Map(
      [...rejected].map(([policy, top]) => [
        policy,
        top.map(([identity, n]) => [keys.listedIdentity(keys.identityTag(identity)), n] as const),
      ]),
    );
    try {
      // Also with nothing to add: it tells whether this instance's counts are up to date.
      await this.store.write(series, listed, Date.now());
      this.flushedAt = Date.now();
    } catch (error) {
      // Not sent (Redis not connected): the counts wait for a later flush, an hour at most.
      // Otherwise (timeout, error) some may have applied: dropped, never counted twice.
      if (error instanceof TrafficStoreNotReady) this.keep(pending);
    }
  }

  private keep(unsent: Map<number, Map<string, DecisionCounts>>): void {
    const oldest = bucketOf(Date.now()) - SERIES_SPAN_MS;
    for (const [bucket, byPolicy] of unsent) {
      if (bucket <= oldest) continue;
      const target = this.bucket(bucket);
      for (const [policy, counts] of byPolicy) {
        const sum = target.get(policy) ?? { allowed: 0, rejected: 0, shadowRejected: 0 };
        for (const outcome of DECISION_OUTCOMES) sum[outcome] += counts[outcome];
        target.set(policy, sum);
      }
    }
  }

  /**
   * The last `minutes` of traffic (up to an hour) of the named policies, summed over instances.
   * The last bucket is the one in progress: its counts cover `end - <its start>` (so a chart
   * shows its rate over that time, not a dip), less what instances have not flushed yet.
   */
  async series(names: readonly string[], minutes: number, nowMs = Date.now()) {
    const span = Math.min(minutes * MINUTE_MS, SERIES_SPAN_MS);
    const last = bucketOf(nowMs);
    const first = last - span + BUCKET_MS;
    const policies = await this.store.series(names, first, last);
    const series: TrafficSeries = {
      bucketMs: BUCKET_MS,
      start: first,
      end: nowMs,
      policies,
    };
    return series;
  }

  /** The identities most rejected under the policy over the last `minutes` (up to 10). */
  topRejected(policy: string, minutes: number, count: number, nowMs = Date.now()) {
    const span = Math.min(minutes * MINUTE_MS, REJECTED_SPAN_MS);
    const last = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    return this.store.topRejected(policy, last - span + MINUTE_MS, last, count);
  }

  private bucket(bucket: number): Map<string, DecisionCounts> {
    let byPolicy = this.pending.get(bucket);
    if (!byPolicy) this.pending.set(bucket, (byPolicy = new Map()));
    return byPolicy;
  }
}
