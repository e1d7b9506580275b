import { Injectable } from '@nestjs/common';
import type { PolicyOverride } from '../policy/policy-thresholds';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { thresholdProblem } from '../policy/threshold-problem';

type Handler = (...args: unknown[]) => unknown;

/** Where a policy is applied: used to list its routes. */
export interface PolicyUsage {
  readonly controller: abstract new (...args: never[]) => unknown;
  readonly handler: Handler;
}

interface RegisteredPolicy {
  readonly defaults: RateLimitPolicy;
  /** The declaration left `burst` out, so it follows `limit`, also when limit is overridden. */
  readonly burstFollowsLimit: boolean;
  readonly declaredAt: string[];
  readonly usages: PolicyUsage[];
  override: PolicyOverride | null;
  effective: RateLimitPolicy;
}

const FIELDS: readonly (keyof RateLimitPolicy)[] = [
  'algo',
  'limit',
  'windowMs',
  'burst',
  'blockForMs',
  'mode',
];

export type PolicyChangeListener = (name: string, policy: RateLimitPolicy) => void;

/**
 * Every policy of the application by name, with its declared defaults and the runtime override
 * operators set. Requests read the effective policy from memory here: no round trip.
 */
@Injectable()
export class PolicyRegistry {
  private readonly policies = new Map<string, RegisteredPolicy>();
  private readonly listeners: PolicyChangeListener[] = [];

  register(
    policy: RateLimitPolicy,
    where: string,
    burstFollowsLimit = false,
    usage?: PolicyUsage,
  ): void {
    const existing = this.policies.get(policy.name);
    if (!existing) {
      this.policies.set(policy.name, {
        defaults: policy,
        burstFollowsLimit,
        declaredAt: [where],
        usages: usage ? [usage] : [],
        override: null,
        effective: policy,
      });
      return;
    }
    const differs = FIELDS.find((field) => existing.defaults[field] !== policy[field]);
    if (differs) {
      throw new RateLimitConfigError(
        where,
        differs,
        `differs from policy "${policy.name}" as declared on ${existing.declaredAt[0]}; ` +
          'give one of them another name',
      );
    }
    if (!existing.declaredAt.includes(where)) existing.declaredAt.push(where);
    if (usage) existing.usages.push(usage);
  }

  /** The effective policy (defaults with the override applied). */
  get(name: string): RateLimitPolicy | undefined {
    return this.policies.get(name)?.effective;
  }

  has(name: string): boolean {
    return this.policies.has(name);
  }

  defaults(name: string): RateLimitPolicy | undefined {
    return this.policies.get(name)?.defaults;
  }

  override(name: string): PolicyOverride | null {
    return this.policies.get(name)?.override ?? null;
  }

  usages(name: string): readonly PolicyUsage[] {
    return this.policies.get(name)?.usages ?? [];
  }

  /**
   * Applies (or with null removes) an override; listeners hear of real changes only. An override
   * whose result is invalid as a whole (see threshold-problem.ts) is not applied: the problem is
   * returned.
   */
  applyOverride(name: string, override: PolicyOverride | null): string | undefined {
    const entry = this.policies.get(name);
    if (!entry) return undefined;
    const next = effectivePolicy(entry.defaults, entry.burstFollowsLimit, override);
    const problem = thresholdProblem(next);
    if (problem) return problem;
    entry.override = override;
    const changed = (Object.keys(next) as (keyof RateLimitPolicy)[]).some(
      (k) => next[k] !== entry.effective[k],
    );
    entry.effective = next;
    if (changed) for (const listener of this.listeners) listener(name, next);
    return undefined;
  }

  /** The policy an override would produce, without applying it. */
  preview(name: string, override: PolicyOverride | null): RateLimitPolicy | undefined {
    const entry = this.policies.get(name);
    return entry && effectivePolicy(entry.defaults, entry.burstFollowsLimit, override);
  }

  onChange(listener: PolicyChangeListener): void {
    this.listeners.push(listener);
  }

  names(): string[] {
    return [...this.policies.keys()];
  }

  list(): RateLimitPolicy[] {
    return [...this.policies.values()].map((entry) => entry.effective);
  }
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
