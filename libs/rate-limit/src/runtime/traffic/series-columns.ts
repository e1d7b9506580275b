import { DECISION_OUTCOMES, type DecisionOutcome } from '../../decision/decision-outcome';
import { BUCKET_MS } from './traffic-buckets';
import type { SeriesColumns } from './traffic-store';

export function emptyColumns(from: number, to: number): SeriesColumns {
  const length = Math.max(0, Math.floor((to - from) / BUCKET_MS) + 1);
  const columns = {} as SeriesColumns;
  for (const outcome of DECISION_OUTCOMES) columns[outcome] = new Array<number>(length).fill(0);
  return columns;
}

/** Adds a count to its bucket's slot; buckets outside `from`..(end of columns) are ignored. */
export function addTo(
  columns: SeriesColumns,
  from: number,
  bucket: number,
  outcome: DecisionOutcome,
  count: number,
): void {
  const slot = (bucket - from) / BUCKET_MS;
  const column = columns[outcome];
  if (slot >= 0 && slot < column.length) column[slot] += count;
}

/** Merges per-key top lists into one, highest first. */
export function mergeTop(
  lists: readonly (readonly (readonly [string, number])[])[],
  count: number,
): [string, number][] {
  const sums = new Map<string, number>();
  for (const list of lists) {
    for (const [identity, n] of list) {
      sums.set(identity, Math.min(Number.MAX_SAFE_INTEGER, (sums.get(identity) ?? 0) + n));
    }
  }
  return [...sums].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count);
}
