import type { PolicyOverride, TierThresholds } from '../policy/policy-thresholds';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from '../policy/policy-limits';
import { isRateLimitAlgorithm } from '../policy/rate-limit-algorithm';
import { RATE_LIMIT_MODES } from '../policy/rate-limit-mode';

export interface ParsedOverride {
  /** Null when the hash holds no valid field. */
  readonly override: PolicyOverride | null;
  /** One line per field that was ignored, for the warning. */
  readonly problems: string[];
}

const integerIn = (min: number, max: number) => (raw: string) => {
  const n = Number(raw);
  return /^\d+$/.test(raw) && n >= min && n <= max ? n : undefined;
};

/** A closed list of accepted texts: a Map, since `{...}[raw]` finds `__proto__` and `constructor`. */
function oneOf<T>(values: Record<string, T>): (raw: string) => T | undefined {
  const accepted = new Map(Object.entries(values));
  return (raw) => accepted.get(raw);
}

type Field = Exclude<keyof PolicyOverride, 'tiers'>;

const PARSERS: Record<Field, (raw: string) => unknown> = {
  algo: (raw) => (isRateLimitAlgorithm(raw) ? raw : undefined),
  limit: integerIn(1, MAX_LIMIT),
  burst: integerIn(1, MAX_LIMIT),
  windowMs: integerIn(MIN_WINDOW_MS, MAX_WINDOW_MS),
  mode: oneOf(Object.fromEntries(RATE_LIMIT_MODES.map((m) => [m, m]))),
  enabled: oneOf({ true: true, '1': true, false: false, '0': false }),
  updatedAt: integerIn(0, Number.MAX_SAFE_INTEGER),
};

/** A tier's thresholds are the fields `tier.<tier>.limit|windowMs|burst`. */
const TIER_FIELD = /^tier\.([A-Za-z0-9_-]{1,64})\.(limit|windowMs|burst)$/;

export function tierField(tier: string, field: keyof TierThresholds): string {
  return `tier.${tier}.${field}`;
}

/**
 * Reads the hash `<prefix>:policy:<name>`, which operators may also write with redis-cli.
 * Invalid or unknown fields are dropped and reported; valid ones still apply.
 */
export function parseOverrideHash(hash: Record<string, string>): ParsedOverride {
  const override: Record<string, unknown> = {};
  const problems: string[] = [];
  const tiers = new Map<string, TierThresholds>();
  for (const [field, raw] of Object.entries(hash)) {
    const tierMatch = TIER_FIELD.exec(field);
    if (tierMatch) {
      const [, tier, name] = tierMatch as unknown as [string, string, keyof TierThresholds];
      const value = PARSERS[name](raw) as number | undefined;
      if (value === undefined) problems.push(`${field}=${JSON.stringify(raw)}`);
      else tiers.set(tier, { ...tiers.get(tier), [name]: value });
      continue;
    }
    // Own keys only: redis-cli may write `__proto__`, `constructor` or `hasOwnProperty` as fields.
    const parse = Object.hasOwn(PARSERS, field)
      ? (PARSERS[field as Field] as (raw: string) => unknown)
      : undefined;
    const value = parse?.(raw);
    if (value === undefined)
      problems.push(`${field}=${JSON.stringify(raw)}${parse ? '' : ' (unknown field)'}`);
    else override[field] = value;
  }
  if (tiers.size > 0) override.tiers = Object.fromEntries(tiers);
  const useful = Object.keys(override).some((field) => field !== 'updatedAt');
  return { override: useful ? (override as PolicyOverride) : null, problems };
}

/** The hash fields of an override, as strings. */
export function encodeOverride(override: PolicyOverride): Record<string, string> {
  const hash: Record<string, string> = {};
  for (const [field, value] of Object.entries(override)) {
    if (field === 'tiers') continue;
    if (value !== undefined) hash[field] = String(value);
  }
  for (const [tier, thresholds] of Object.entries(override.tiers ?? {})) {
    for (const [field, value] of Object.entries(thresholds)) {
      if (value !== undefined) hash[tierField(tier, field as keyof TierThresholds)] = String(value);
    }
  }
  return hash;
}
