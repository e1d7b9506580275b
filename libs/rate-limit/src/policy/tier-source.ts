import type { TierSource } from './rate-limit-options.interface';

export const TIER_SOURCE_EXPECTED =
  "must be a function of the ExecutionContext or { header: 'name' }";

/** A function, or `{ header }` with a header name as HTTP allows it. */
export function isTierSource(value: unknown): value is TierSource {
  if (typeof value === 'function') return true;
  const header = (value as { header?: unknown } | null)?.header;
  return typeof value === 'object' && typeof header === 'string' && /^[A-Za-z0-9-]+$/.test(header);
}

/** Whether the tier is read from the raw request alone, so it is known before routing too. */
export const isHeaderTier = (source: TierSource | undefined): boolean =>
  typeof source === 'object' && source !== null;
