/**
 * The count in a fixed-window key as lua/fixed-window.lua writes it: one negative integer,
 * "-<window end, ms><count, 6 digits>" ("-<window end>:<count>" from a count of 1e6 up); or, from
 * older versions, (window index mod 2^23) * 2^30 + count, or "<windowIndex>:<count>".
 */
export function fixedWindowCount(raw: string | null): number {
  if (raw === null) return 0;
  if (raw.includes(':')) return Number(raw.split(':')[1]);
  return raw.startsWith('-') ? Number(raw.slice(-6)) : Number(raw) % 2 ** 30;
}
