/**
 * The count in a fixed-window key as lua/fixed-window.lua writes it: in its expiry form, the
 * count alone ("5", its window ending at the key's expiry); in its packed form one negative
 * integer, "-<window end, ms><count, 6 digits>", or "-<window end>:<count>" from a count of 1e6 up.
 */
export function fixedWindowCount(raw: string | null): number {
  if (raw === null) return 0;
  if (/^\d+$/.test(raw)) return Number(raw);
  if (!raw.startsWith('-')) throw new Error(`not a fixed-window state: ${JSON.stringify(raw)}`);
  return raw.includes(':') ? Number(raw.split(':')[1]) : Number(raw.slice(-6));
}
