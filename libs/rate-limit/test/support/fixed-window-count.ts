/**
 * The count in a fixed-window key as lua/fixed-window.lua writes it: one integer,
 * (window index mod 2^23) * 2^30 + count (or "<windowIndex>:<count>" from older versions).
 */
export function fixedWindowCount(raw: string | null): number {
  if (raw === null) return 0;
  return raw.includes(':') ? Number(raw.split(':')[1]) : Number(raw) % 2 ** 30;
}
