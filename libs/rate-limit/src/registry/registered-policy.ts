import type { HandlerKind } from '../context/handler-kind';
import type { PolicyOverride, TierThresholds } from '../policy/policy-thresholds';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { thresholdProblem } from '../policy/threshold-problem';
import { tierPolicy } from '../policy/tier-policy';

type Handler = (...args: unknown[]) => unknown;

/** Where a policy is applied: used to list its routes. */
export interface PolicyUsage {
  readonly controller: abstract new (...args: never[]) => unknown;
  readonly handler: Handler;
  /** Where the handler runs: an HTTP route, a resolver, a gateway or microservice handler. */
  readonly kind?: HandlerKind;
}

/** What a policy's thresholds are with an override applied: the policy's own and each tier's. */
export interface EffectiveThresholds {
  readonly policy: RateLimitPolicy;
  readonly tiers: ReadonlyMap<string, RateLimitPolicy>;
}

/** One policy as declared (defaults, tiers, where) and as currently overridden. */
export class RegisteredPolicy {
  readonly declaredAt: string[] = [];
  readonly usages: PolicyUsage[] = [];
  override: PolicyOverride | null = null;
  effective: EffectiveThresholds;

  constructor(
    readonly defaults: RateLimitPolicy,
    /** The declaration left `burst` out, so it follows `limit`, also when limit is overridden. */
    readonly burstFollowsLimit: boolean,
    /** Declared tiers, by name, in declaration order. */
    readonly tiers: ReadonlyMap<string, TierThresholds>,
  ) {
    this.effective = this.withOverride(null);
  }

  /** The thresholds an override gives the policy and its tiers (undeclared tiers are ignored). */
  withOverride(override: PolicyOverride | null): EffectiveThresholds {
    const policy = effectivePolicy(this.defaults, this.burstFollowsLimit, override);
    const tiers = new Map<string, RateLimitPolicy>();
    for (const [name, declared] of this.tiers) {
      const own =
        override?.tiers && Object.hasOwn(override.tiers, name) ? override.tiers[name] : undefined;
      tiers.set(name, tierPolicy(policy, name, declared, own));
    }
    return { policy, tiers };
  }
}

/** The first problem of the thresholds as a whole (the policy's, then each tier's), if any. */
export function effectiveProblem(effective: EffectiveThresholds): string | undefined {
  const problem = thresholdProblem(effective.policy);
  if (problem) return problem;
  for (const [name, tier] of effective.tiers) {
    const tierProblem = thresholdProblem(tier);
    if (tierProblem) return `tier ${name}: ${tierProblem}`;
  }
  return undefined;
}

/** Whether any threshold of the two differs. */
export function thresholdsDiffer(a: EffectiveThresholds, b: EffectiveThresholds): boolean {
  if (policiesDiffer(a.policy, b.policy)) return true;
  for (const [name, tier] of a.tiers) if (policiesDiffer(tier, b.tiers.get(name)!)) return true;
  return false;
}

function policiesDiffer(a: RateLimitPolicy, b: RateLimitPolicy): boolean {
  return (Object.keys(a) as (keyof RateLimitPolicy)[]).some((k) => a[k] !== b[k]);
}

function effectivePolicy(
  defaults: RateLimitPolicy,
  burstFollowsLimit: boolean,
  override: PolicyOverride | null,
): RateLimitPolicy {
  if (!override) return defaults;
  const limit = override.limit ?? defaults.limit;
  return {
    ...defaults,
    algo: override.algo ?? defaults.algo,
    limit,
    windowMs: override.windowMs ?? defaults.windowMs,
    burst: override.burst ?? (burstFollowsLimit ? limit : defaults.burst),
    mode: override.mode ?? defaults.mode,
    enabled: override.enabled ?? defaults.enabled,
  };
}
