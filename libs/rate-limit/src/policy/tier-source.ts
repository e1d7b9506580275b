import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import type { SkipPredicate, TierSource } from './rate-limit-options.interface';

export const TIER_SOURCE_EXPECTED =
  "must be a function of the ExecutionContext or { header: 'name' }";

/** `{ header }` with a header name as HTTP allows it (a key source or a tier source). */
export function isHeaderSource(value: unknown): value is { header: string } {
  const header = (value as { header?: unknown } | null)?.header;
  return typeof value === 'object' && typeof header === 'string' && /^[A-Za-z0-9-]+$/.test(header);
}

/** A function, or `{ header }`. */
export const isTierSource = (value: unknown): value is TierSource =>
  typeof value === 'function' || isHeaderSource(value);

/** The `skip` and `tier` options, of a policy or of the module, checked alike. */
export function checkSkipAndTier(
  where: string,
  options: { readonly skip?: SkipPredicate; readonly tier?: TierSource },
): void {
  if (options.skip !== undefined && typeof options.skip !== 'function') {
    throw new RateLimitConfigError(where, 'skip', 'must be a function of the ExecutionContext');
  }
  if (options.tier !== undefined && !isTierSource(options.tier)) {
    throw new RateLimitConfigError(where, 'tier', TIER_SOURCE_EXPECTED);
  }
}

/** Whether the tier is read from the raw request alone, so it is known before routing too. */
export const isHeaderTier = (source: TierSource | undefined): boolean =>
  typeof source === 'object' && source !== null;
