export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly values: readonly number[];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function spread(values: readonly number[]): Spread {
  const finite = values.filter((v) => Number.isFinite(v));
  return {
    median: median(finite),
    min: finite.length ? Math.min(...finite) : Number.NaN,
    max: finite.length ? Math.max(...finite) : Number.NaN,
    values,
  };
}

/** `items` rotated left by `by`: interleaved repetitions do not always run in the same order. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const n = items.length;
  const k = ((by % n) + n) % n;
  return [...items.slice(k), ...items.slice(0, k)];
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
