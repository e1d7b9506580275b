const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/;

/** Milliseconds for `'500ms' | '10s' | '5m' | '1h' | '1d'` or a number of ms; NaN if unparsable. */
export function parseDurationMs(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return Number.NaN;
  const match = DURATION.exec(value);
  if (!match) return /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  // toPrecision drops float noise ('1.001s' -> 1001, not 1000.9999999999999); a real
  // fraction of a millisecond stays fractional and is rejected by the caller.
  return Number((Number(match[1]) * UNIT_MS[match[2]]).toPrecision(15));
}
