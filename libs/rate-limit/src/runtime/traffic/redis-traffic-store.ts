import { ReplyError } from 'ioredis';
import { DECISION_OUTCOMES } from '../../decision/decision-outcome';
import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';
import type { RedisClient } from '../../store/redis/redis-script';
import { withTimeout } from '../../store/redis/with-timeout';
import { addTo, emptyColumns, mergeTop } from './series-columns';
import {
  SEGMENT_MS,
  bucketField,
  parseBucketField,
  segmentExpiresAt,
  segmentKey,
  segmentOf,
} from './traffic-buckets';
import {
  MINUTE_MS,
  REJECTED_KEPT,
  REJECTED_SPAN_MS,
  type BucketCounts,
  type RejectedBatch,
  type SeriesColumns,
  type TrafficStore,
} from './traffic-store';

/** A key of another type (written by hand) reads as empty, for its own policy and time alone. */
const emptyOnWrongType =
  <T>(empty: T) =>
  (error: unknown): T => {
    if (error instanceof ReplyError) return empty;
    throw error;
  };

/**
 * The series as hashes `<prefix>:traffic:<policy>:<segment>` (HINCRBY per bucket and outcome)
 * and rejected clients as sorted sets `<prefix>:rejected:<policy>:<minute>` (ZINCRBY, trimmed to
 * the REJECTED_KEPT highest): every instance adds to the same keys, so Redis holds the sums.
 * Single-key commands only, so a Cluster spreads them over its masters.
 */
export class RedisTrafficStore implements TrafficStore {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  async write(series: readonly BucketCounts[], rejected: RejectedBatch, nowMs: number) {
    // A client of the application's may queue commands while disconnected: never pile up there.
    if (this.client.status !== 'ready') throw new Error('Redis is not ready');
    const commands: Promise<unknown>[] = [];
    const expiring = new Map<string, number>();
    for (const { policy, bucket, counts } of series) {
      const key = segmentKey(this.prefix, policy, segmentOf(bucket));
      for (const outcome of DECISION_OUTCOMES) {
        if (counts[outcome] > 0) {
          commands.push(this.client.hincrby(key, bucketField(bucket, outcome), counts[outcome]));
        }
      }
      expiring.set(key, segmentExpiresAt(segmentOf(bucket)));
    }
    const minute = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    for (const [policy, top] of rejected) {
      if (top.length === 0) continue;
      const key = this.rejectedKey(policy, minute);
      for (const [identity, n] of top) commands.push(this.client.zincrby(key, n, identity));
      commands.push(this.client.zremrangebyrank(key, 0, -(REJECTED_KEPT + 1)));
      expiring.set(key, minute + MINUTE_MS + REJECTED_SPAN_MS);
    }
    for (const [key, at] of expiring) commands.push(this.client.pexpireat(key, at));
    await withTimeout(Promise.all(commands), BACKGROUND_TIMEOUT_MS);
  }

  async series(names: readonly string[], from: number, to: number) {
    const segments: number[] = [];
    for (let s = segmentOf(from); s <= to; s += SEGMENT_MS) segments.push(s);
    const reads = names.flatMap((name) =>
      segments.map((segment) =>
        this.client
          .hgetall(segmentKey(this.prefix, name, segment))
          .catch(emptyOnWrongType<Record<string, string>>({})),
      ),
    );
    const hashes = await withTimeout(Promise.all(reads), BACKGROUND_TIMEOUT_MS);
    const result = new Map<string, SeriesColumns>();
    names.forEach((name, n) => {
      const columns = emptyColumns(from, to);
      segments.forEach((segment, s) => {
        for (const [field, raw] of Object.entries(hashes[n * segments.length + s])) {
          const parsed = parseBucketField(segment, field);
          const count = Number(raw);
          if (parsed && Number.isSafeInteger(count) && count > 0) {
            addTo(columns, from, parsed.bucket, parsed.outcome, count);
          }
        }
      });
      result.set(name, columns);
    });
    return result;
  }

  async topRejected(policy: string, from: number, to: number, count: number) {
    const reads: Promise<string[]>[] = [];
    for (let minute = from; minute <= to; minute += MINUTE_MS) {
      reads.push(
        this.client
          .zrevrange(this.rejectedKey(policy, minute), 0, REJECTED_KEPT - 1, 'WITHSCORES')
          .catch(emptyOnWrongType<string[]>([])),
      );
    }
    const replies = await withTimeout(Promise.all(reads), BACKGROUND_TIMEOUT_MS);
    const lists = replies.map((flat) => {
      const pairs: [string, number][] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i], Number(flat[i + 1])]);
      return pairs.filter(([, n]) => Number.isFinite(n) && n > 0);
    });
    return mergeTop(lists, count);
  }

  private rejectedKey(policy: string, minute: number): string {
    return `${this.prefix}:rejected:${policy}:${minute / 1000}`;
  }
}
