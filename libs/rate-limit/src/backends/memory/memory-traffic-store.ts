import { DECISION_OUTCOMES } from '../../decision/decision-outcome';
import type { DecisionCounts } from '../../decision/decision-counts';
import { addTo, emptyColumns, mergeTop } from '../../runtime/traffic/series-columns';
import { BUCKET_MS, SERIES_SPAN_MS } from '../../runtime/traffic/traffic-buckets';
import {
  MINUTE_MS,
  REJECTED_KEPT,
  REJECTED_SPAN_MS,
  type BucketCounts,
  type RejectedBatch,
  type SeriesColumns,
  type TrafficStore,
} from '../../runtime/traffic/traffic-store';

/**
 * The traffic data of an application without Redis (one process): the same buckets and the
 * same bounds as in Redis, pruned at each write.
 */
export class MemoryTrafficStore implements TrafficStore {
  private readonly buckets = new Map<string, Map<number, DecisionCounts>>();
  private readonly rejected = new Map<string, Map<number, Map<string, number>>>();

  async write(series: readonly BucketCounts[], rejected: RejectedBatch, nowMs: number) {
    for (const { policy, bucket, counts } of series) {
      let byBucket = this.buckets.get(policy);
      if (!byBucket) this.buckets.set(policy, (byBucket = new Map()));
      const sum = byBucket.get(bucket) ?? { allowed: 0, rejected: 0, shadowRejected: 0 };
      for (const outcome of DECISION_OUTCOMES) sum[outcome] += counts[outcome];
      byBucket.set(bucket, sum);
    }
    const minute = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    for (const [policy, top] of rejected) {
      let byMinute = this.rejected.get(policy);
      if (!byMinute) this.rejected.set(policy, (byMinute = new Map()));
      const counts = byMinute.get(minute) ?? new Map<string, number>();
      for (const [identity, n] of top) counts.set(identity, (counts.get(identity) ?? 0) + n);
      byMinute.set(minute, new Map(mergeTop([[...counts]], REJECTED_KEPT)));
    }
    this.prune(nowMs);
  }

  async series(names: readonly string[], from: number, to: number) {
    const result = new Map<string, SeriesColumns>();
    for (const name of names) {
      const columns = emptyColumns(from, to);
      for (const [bucket, counts] of this.buckets.get(name) ?? []) {
        for (const outcome of DECISION_OUTCOMES) {
          addTo(columns, from, bucket, outcome, counts[outcome]);
        }
      }
      result.set(name, columns);
    }
    return result;
  }

  async topRejected(policy: string, from: number, to: number, count: number) {
    const lists = [...(this.rejected.get(policy) ?? [])]
      .filter(([minute]) => minute >= from && minute <= to)
      .map(([, counts]) => [...counts]);
    return mergeTop(lists, count);
  }

  private prune(nowMs: number): void {
    const oldestBucket = nowMs - SERIES_SPAN_MS - BUCKET_MS;
    for (const byBucket of this.buckets.values()) {
      for (const bucket of byBucket.keys()) if (bucket < oldestBucket) byBucket.delete(bucket);
    }
    const oldestMinute = nowMs - REJECTED_SPAN_MS - MINUTE_MS;
    for (const byMinute of this.rejected.values()) {
      for (const minute of byMinute.keys()) if (minute < oldestMinute) byMinute.delete(minute);
    }
  }
}
