import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { isTierName } from '../policy/tier-policy';
import { MAX_BOOST_CEILING } from './control-law';
import { DEFAULT_PRESSURE_TARGETS, type PressureTargets } from './pressure';
import type { AdaptiveTier } from './tier-multipliers';

/** off: nothing runs; shadow: computed and reported, nothing rejected; enforce. */
export const ADAPTIVE_MODES = ['off', 'shadow', 'enforce'] as const;
export type AdaptiveMode = (typeof ADAPTIVE_MODES)[number];

/** Which policies it scales: those with `adaptive: true`, or all but those with `adaptive: false`. */
export const ADAPTIVE_POLICIES = ['opted-in', 'all'] as const;
export type AdaptivePolicies = (typeof ADAPTIVE_POLICIES)[number];

/** One tier in shedding order. */
export interface AdaptiveTierOptions {
  name: string;
  /** Smallest share of its configured thresholds it keeps, 0-1. @default 0.2 */
  floor?: number;
  /** Never shed (the same as floor 1). */
  exempt?: boolean;
}

/** The module's `adaptive` option (SPEC section 15). */
export interface AdaptiveOptions {
  /** @default 'off' */
  mode?: AdaptiveMode;
  /** @default 'opted-in' */
  policies?: AdaptivePolicies;
  /**
   * Tiers in shedding order, the first shed first. A policy's requests without a tier count as
   * the tier named `default`; a tier not listed here is exempt.
   * @default [{ name: 'default' }]
   */
  tiers?: AdaptiveTierOptions[];
  /** Highest multiplier the boost may reach, 1 (never) to 3. @default 1.5 */
  boostCeiling?: number;
  /** What each signal is compared with (pressure 1.0 = at target). */
  targets?: Partial<PressureTargets>;
}

export interface ResolvedAdaptiveOptions {
  mode: AdaptiveMode;
  policies: AdaptivePolicies;
  tiers: AdaptiveTier[];
  boostCeiling: number;
  targets: PressureTargets;
}

export const DEFAULT_TIER_FLOOR = 0.2;
const WHERE = 'RateLimitModule.forRoot()';

/** Validates the module's `adaptive` option once, at bootstrap, with defaults. */
export function resolveAdaptiveOptions(
  options: AdaptiveOptions | undefined,
): ResolvedAdaptiveOptions {
  const o = options ?? {};
  const mode = o.mode ?? 'off';
  if (!ADAPTIVE_MODES.includes(mode))
    throw new RateLimitConfigError(
      WHERE,
      'adaptive.mode',
      `must be one of ${ADAPTIVE_MODES.join(', ')}`,
    );
  const policies = o.policies ?? 'opted-in';
  if (!ADAPTIVE_POLICIES.includes(policies))
    throw new RateLimitConfigError(
      WHERE,
      'adaptive.policies',
      `must be one of ${ADAPTIVE_POLICIES.join(', ')}`,
    );
  const boostCeiling = o.boostCeiling ?? 1.5;
  if (typeof boostCeiling !== 'number' || !(boostCeiling >= 1 && boostCeiling <= MAX_BOOST_CEILING))
    throw new RateLimitConfigError(
      WHERE,
      'adaptive.boostCeiling',
      `must be a number from 1 to ${MAX_BOOST_CEILING}`,
    );
  return {
    mode,
    policies,
    tiers: resolveTiers(o.tiers),
    boostCeiling,
    targets: resolveTargets(o.targets),
  };
}

function resolveTiers(tiers: AdaptiveTierOptions[] | undefined): AdaptiveTier[] {
  if (tiers === undefined) return [{ name: 'default', floor: DEFAULT_TIER_FLOOR }];
  if (!Array.isArray(tiers) || tiers.length === 0)
    throw new RateLimitConfigError(
      WHERE,
      'adaptive.tiers',
      'must be a non-empty array of { name, floor, exempt }',
    );
  const seen = new Set<string>();
  return tiers.map((tier, i) => {
    const field = `adaptive.tiers[${i}]`;
    if (typeof tier !== 'object' || tier === null || typeof tier.name !== 'string')
      throw new RateLimitConfigError(WHERE, field, 'must be an object with a tier name');
    if (!isTierName(tier.name))
      throw new RateLimitConfigError(
        WHERE,
        `${field}.name`,
        `must be 1-64 characters of A-Z a-z 0-9 _ - (got ${JSON.stringify(tier.name)})`,
      );
    if (seen.has(tier.name))
      throw new RateLimitConfigError(WHERE, `${field}.name`, `repeats the tier "${tier.name}"`);
    seen.add(tier.name);
    const floor = tier.floor ?? DEFAULT_TIER_FLOOR;
    if (typeof floor !== 'number' || !(floor >= 0 && floor <= 1))
      throw new RateLimitConfigError(WHERE, `${field}.floor`, 'must be a number from 0 to 1');
    if (tier.exempt !== undefined && typeof tier.exempt !== 'boolean')
      throw new RateLimitConfigError(WHERE, `${field}.exempt`, 'must be true or false');
    return { name: tier.name, floor: tier.exempt ? 1 : floor };
  });
}

function resolveTargets(targets: Partial<PressureTargets> | undefined): PressureTargets {
  const resolved = { ...DEFAULT_PRESSURE_TARGETS };
  for (const [name, value] of Object.entries(targets ?? {})) {
    if (!(name in DEFAULT_PRESSURE_TARGETS))
      throw new RateLimitConfigError(
        WHERE,
        `adaptive.targets.${name}`,
        `is not a signal (${Object.keys(DEFAULT_PRESSURE_TARGETS).join(', ')})`,
      );
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      throw new RateLimitConfigError(WHERE, `adaptive.targets.${name}`, 'must be a number above 0');
    resolved[name as keyof PressureTargets] = value;
  }
  return resolved;
}

/** Whether adaptive protection scales `policy` (its own `adaptive`, else the module's default). */
export function isAdaptivePolicy(
  options: ResolvedAdaptiveOptions,
  policy: { readonly adaptive?: boolean },
): boolean {
  return policy.adaptive ?? options.policies === 'all';
}

/** A request's tier in the shedding order; an unlisted tier is exempt. */
export function adaptiveTierOf(
  tiers: readonly AdaptiveTier[],
  tier: string | undefined,
): AdaptiveTier {
  const name = tier ?? 'default';
  return tiers.find((t) => t.name === name) ?? { name, floor: 1 };
}
