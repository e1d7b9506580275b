import type { ChainableCommander } from 'ioredis';
import { DECISION_OUTCOMES } from '../../decision/decision-outcome';
import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';
import type { RedisClient } from '../../store/redis/redis-script';
import { withTimeout } from '../../store/redis/with-timeout';
import { isWrongType } from '../../store/redis/wrong-type';
import { addTo, emptyColumns, mergeTop } from '../../runtime/traffic/series-columns';
import {
  SEGMENT_MS,
  bucketField,
  parseBucketField,
  segmentExpiresAt,
  segmentKey,
  segmentOf,
} from '../../runtime/traffic/traffic-buckets';
import {
  MINUTE_MS,
  REJECTED_KEPT,
  REJECTED_SPAN_MS,
  type BucketCounts,
  type RejectedBatch,
  type SeriesColumns,
  TrafficStoreNotReady,
  type TrafficStore,
} from '../../runtime/traffic/traffic-store';

/** A key of another type (written by hand) reads as empty, for its own policy and time alone. */
const emptyOnWrongType =
  <T>(empty: T) =>
  (error: unknown): T => {
    if (isWrongType(error)) return empty;
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
    if (this.client.status !== 'ready') throw new TrafficStoreNotReady();
    // Per key, its increments and its expiry in one MULTI: no key is ever left without expiry.
    const perKey = new Map<string, { expireAt: number; add: (m: ChainableCommander) => void }[]>();
    const queue = (key: string, expireAt: number, add: (m: ChainableCommander) => void) => {
      const list = perKey.get(key) ?? [];
      perKey.set(key, list);
      list.push({ expireAt, add });
    };
    for (const { policy, bucket, counts } of series) {
      const segment = segmentOf(bucket);
      const key = segmentKey(this.prefix, policy, segment);
      for (const outcome of DECISION_OUTCOMES) {
        const n = counts[outcome];
        if (n > 0)
          queue(key, segmentExpiresAt(segment), (m) =>
            m.hincrby(key, bucketField(bucket, outcome), n),
          );
      }
    }
    const minute = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    for (const [policy, top] of rejected) {
      const key = this.rejectedKey(policy, minute);
      for (const [identity, n] of top) {
        queue(key, minute + MINUTE_MS + REJECTED_SPAN_MS, (m) => m.zincrby(key, n, identity));
      }
      if (top.length > 0) {
        queue(key, 0, (m) => m.zremrangebyrank(key, 0, -(REJECTED_KEPT + 1)));
      }
    }
    const writes = [...perKey].map(([key, parts]) => {
      const multi = this.client.multi();
      for (const part of parts) part.add(multi);
      multi.pexpireat(key, Math.max(...parts.map((p) => p.expireAt)));
      return multi.exec();
    });
    const replies = await withTimeout(Promise.all(writes), BACKGROUND_TIMEOUT_MS);
    // EXEC answers each command's error in its reply (a key of another type, written by hand).
    const failed = replies.flatMap((reply) => reply ?? []).find(([error]) => error);
    if (failed) throw failed[0];
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
      return pairs.filter(([, n]) => Number.isSafeInteger(n) && n > 0);
    });
    return mergeTop(lists, count);
  }

  private rejectedKey(policy: string, minute: number): string {
    return `${this.prefix}:rejected:${policy}:${minute / 1000}`;
  }
}
