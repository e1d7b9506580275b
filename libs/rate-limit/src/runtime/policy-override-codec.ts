import type { PolicyOverride } from '../policy/policy-thresholds';
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

const PARSERS: Record<keyof PolicyOverride, (raw: string) => unknown> = {
  algo: (raw) => (isRateLimitAlgorithm(raw) ? raw : undefined),
  limit: integerIn(1, MAX_LIMIT),
  burst: integerIn(1, MAX_LIMIT),
  windowMs: integerIn(MIN_WINDOW_MS, MAX_WINDOW_MS),
  mode: oneOf(Object.fromEntries(RATE_LIMIT_MODES.map((m) => [m, m]))),
  enabled: oneOf({ true: true, '1': true, false: false, '0': false }),
  updatedAt: integerIn(0, Number.MAX_SAFE_INTEGER),
};

/**
 * Reads the hash `<prefix>:policy:<name>`, which operators may also write with redis-cli.
 * Invalid or unknown fields are dropped and reported; valid ones still apply.
 */
export function parseOverrideHash(hash: Record<string, string>): ParsedOverride {
  const override: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [field, raw] of Object.entries(hash)) {
    // Own keys only: redis-cli may write `__proto__`, `constructor` or `hasOwnProperty` as fields.
    const parse = Object.hasOwn(PARSERS, field)
      ? (PARSERS[field as keyof PolicyOverride] as (raw: string) => unknown)
      : undefined;
    const value = parse?.(raw);
    if (value === undefined)
      problems.push(`${field}=${JSON.stringify(raw)}${parse ? '' : ' (unknown field)'}`);
    else override[field] = value;
  }
  const useful = Object.keys(override).some((field) => field !== 'updatedAt');
  return { override: useful ? (override as PolicyOverride) : null, problems };
}

/** The hash fields of an override, as strings. */
export function encodeOverride(override: PolicyOverride): Record<string, string> {
  const hash: Record<string, string> = {};
  for (const [field, value] of Object.entries(override)) {
    if (value !== undefined) hash[field] = String(value);
  }
  return hash;
}
