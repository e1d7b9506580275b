// Numbers, durations and times the way operators read them.

const numberFormat = new Intl.NumberFormat('en-US');
export const fmtCount = (n: number): string => numberFormat.format(n);

/** 60000 -> "1m", 1500 -> "1.5s", 90061000 -> "1d 1h". */
export function fmtDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  const parts: string[] = [];
  let rest = Math.floor(ms);
  for (const [unit, size] of units) {
    const whole = Math.floor(rest / size);
    if (whole > 0) parts.push(`${whole}${unit}`);
    else if (parts.length) break;
    rest -= whole * size;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** A window as the API's `window` field accepts it back: "30s", "5m", else ms. */
export function windowText(ms: number): string {
  const exact: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  for (const [unit, size] of exact) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** How long ago, coarse: "4s ago", "3m ago". */
export function fmtAgo(at: number | null | undefined, now = Date.now()): string {
  if (at === null || at === undefined) return 'never';
  const d = Math.max(0, now - at);
  return d < 1000 ? 'just now' : `${fmtDuration(d)} ago`;
}

const timeFormat = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'short',
  timeStyle: 'medium',
});
export function fmtTime(at: number | string): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? String(at) : timeFormat.format(date);
}

/** An audit field's value: `…Ms` as a duration, `…At` as a time, the rest as written. */
export function fmtValue(v: unknown, field = ''): string {
  // Absent from an override: the default (or nothing) applies.
  if (v === undefined) return 'unset';
  if (typeof v === 'number' && /Ms$/.test(field)) return fmtDuration(v);
  if ((typeof v === 'number' || typeof v === 'string') && /At$/.test(field)) return fmtTime(v);
  if (v === null) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
