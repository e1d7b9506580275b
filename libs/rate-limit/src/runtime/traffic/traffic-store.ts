import type { DecisionCounts } from '../../decision/decision-counts';

/** One policy's counts in one bucket, as flushed by an instance. */
export interface BucketCounts {
  readonly policy: string;
  readonly bucket: number;
  readonly counts: DecisionCounts;
}

/** Per policy, the identities (as the admin API lists them) this instance rejected most. */
export type RejectedBatch = ReadonlyMap<string, readonly (readonly [string, number])[]>;

/** A policy's series: one count per bucket from `start`, oldest first, for each outcome. */
export type SeriesColumns = Record<keyof DecisionCounts, number[]>;

/**
 * Where the dashboard's traffic data lives: Redis (summed over every instance), or this process
 * when there is no Redis. Bounded in both: series buckets and rejected-client sets expire.
 */
export interface TrafficStore {
  write(series: readonly BucketCounts[], rejected: RejectedBatch, nowMs: number): Promise<void>;
  /** Dense columns for the buckets `from`..`to` (bucket starts, inclusive). */
  series(names: readonly string[], from: number, to: number): Promise<Map<string, SeriesColumns>>;
  /** The `count` identities most rejected under `policy` in the minutes `from`..`to`. */
  topRejected(policy: string, from: number, to: number, count: number): Promise<[string, number][]>;
}

/** Nothing was sent: Redis is not connected. What was to be written may wait for a later try. */
export class TrafficStoreNotReady extends Error {
  constructor() {
    super('Redis is not ready');
  }
}

/** How long rejected clients are kept (the dashboard shows up to the last 10 minutes). */
export const REJECTED_SPAN_MS = 600_000;
export const MINUTE_MS = 60_000;
/** Identities kept per policy and minute in Redis, whatever the number of instances. */
export const REJECTED_KEPT = 200;
