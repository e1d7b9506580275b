import type { DecisionOutcome } from '../../decision/decision-outcome';

/** The time series' resolution: one bucket of counts per 10 s. */
export const BUCKET_MS = 10_000;
/** How far back the series goes: older buckets expire in Redis. */
export const SERIES_SPAN_MS = 3_600_000;
/**
 * Buckets kept in one Redis hash (5 minutes). 30 buckets x 3 outcomes = at most 90 fields, under
 * Redis's default `hash-max-listpack-entries` (128), so each hash stays in the compact encoding.
 */
export const SEGMENT_BUCKETS = 30;
export const SEGMENT_MS = SEGMENT_BUCKETS * BUCKET_MS;

/** One letter per outcome keeps the fields short (`12a`: bucket 12 of the segment, allowed). */
export const OUTCOME_LETTER: Record<DecisionOutcome, string> = {
  allowed: 'a',
  rejected: 'r',
  shadowRejected: 's',
};
const OUTCOME_OF_LETTER: Record<string, DecisionOutcome> = {
  a: 'allowed',
  r: 'rejected',
  s: 'shadowRejected',
};

export const bucketOf = (ms: number): number => Math.floor(ms / BUCKET_MS) * BUCKET_MS;
export const segmentOf = (bucket: number): number => Math.floor(bucket / SEGMENT_MS) * SEGMENT_MS;

/** `<prefix>:traffic:<policy>:<segment start, s>`: one hash per policy and 5 minutes. */
export function segmentKey(prefix: string, policy: string, segment: number): string {
  return `${prefix}:traffic:${policy}:${segment / 1000}`;
}

export function bucketField(bucket: number, outcome: DecisionOutcome): string {
  return `${(bucket - segmentOf(bucket)) / BUCKET_MS}${OUTCOME_LETTER[outcome]}`;
}

/** The bucket and outcome of a stored field; undefined for anything else (written by hand). */
export function parseBucketField(
  segment: number,
  field: string,
): { bucket: number; outcome: DecisionOutcome } | undefined {
  const match = /^(\d{1,2})([ars])$/.exec(field);
  if (!match || Number(match[1]) >= SEGMENT_BUCKETS) return undefined;
  return { bucket: segment + Number(match[1]) * BUCKET_MS, outcome: OUTCOME_OF_LETTER[match[2]] };
}

/**
 * A segment's hash lives until its last bucket is an hour old: a bounded series whatever the
 * traffic (at most 13 hashes of at most 90 fields per policy).
 */
export const segmentExpiresAt = (segment: number): number => segment + SEGMENT_MS + SERIES_SPAN_MS;
