import { UnknownPolicyError } from '../errors/unknown-policy.error';
import { Injectable } from '@nestjs/common';
import type { PolicyOverride, TierThresholds } from '../policy/policy-thresholds';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import {
  RegisteredPolicy,
  effectiveProblem,
  thresholdsDiffer,
  type EffectiveThresholds,
  type PolicyUsage,
} from './registered-policy';

export { effectiveProblem };
export type { PolicyUsage, EffectiveThresholds };

const FIELDS: readonly (keyof RateLimitPolicy)[] = [
  'algo',
  'limit',
  'windowMs',
  'burst',
  'blockForMs',
  'mode',
  'adaptive',
];

const NO_TIERS: ReadonlyMap<string, TierThresholds> = new Map();

export type PolicyChangeListener = (name: string, policy: RateLimitPolicy) => void;

/**
 * Every policy of the application by name, with its declared defaults and tiers, and the
 * runtime override operators set. Requests read the effective thresholds from memory here: no
 * round trip.
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
    tiers: ReadonlyMap<string, TierThresholds> = NO_TIERS,
  ): void {
    let entry = this.policies.get(policy.name);
    if (!entry) {
      entry = new RegisteredPolicy(policy, burstFollowsLimit, tiers);
      this.policies.set(policy.name, entry);
    } else {
      const differs =
        FIELDS.find((field) => entry!.defaults[field] !== policy[field]) ??
        (tiersKey(entry.tiers) === tiersKey(tiers) ? undefined : 'tiers');
      if (differs) {
        throw new RateLimitConfigError(
          where,
          differs,
          `differs from policy "${policy.name}" as declared on ${entry.declaredAt[0]}; ` +
            'give one of them another name',
        );
      }
    }
    if (!entry.declaredAt.includes(where)) entry.declaredAt.push(where);
    if (usage) entry.usages.push(usage);
  }

  /** The effective policy (defaults with the override applied). */
  get(name: string): RateLimitPolicy | undefined {
    return this.policies.get(name)?.effective.policy;
  }

  /** The effective policy; UnknownPolicyError when no policy has that name. */
  require(name: string): RateLimitPolicy {
    const policy = this.get(name);
    if (!policy) throw new UnknownPolicyError(name);
    return policy;
  }

  /** The policy's and its tiers' thresholds in force. */
  effective(name: string): EffectiveThresholds | undefined {
    return this.policies.get(name)?.effective;
  }

  /** The effective thresholds of one of the policy's tiers; undefined for an undeclared tier. */
  getTier(name: string, tier: string): RateLimitPolicy | undefined {
    return this.policies.get(name)?.effective.tiers.get(tier);
  }

  /** Every tier of the policy, effective, in declaration order. */
  tiers(name: string): ReadonlyMap<string, RateLimitPolicy> {
    return this.policies.get(name)?.effective.tiers ?? new Map();
  }

  /** What the policy's code declares for each tier. */
  declaredTiers(name: string): ReadonlyMap<string, TierThresholds> {
    return this.policies.get(name)?.tiers ?? NO_TIERS;
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
   * whose result is invalid as a whole (see threshold-problem.ts), the policy's or a tier's, is
   * not applied: the problem is returned. Tiers the policy does not declare are ignored.
   */
  applyOverride(name: string, override: PolicyOverride | null): string | undefined {
    const entry = this.policies.get(name);
    if (!entry) return undefined;
    const next = entry.withOverride(override);
    const problem = effectiveProblem(next);
    if (problem) return problem;
    entry.override = override;
    const changed = thresholdsDiffer(next, entry.effective);
    entry.effective = next;
    if (changed) for (const listener of this.listeners) listener(name, next.policy);
    return undefined;
  }

  /** The thresholds an override would produce, without applying it. */
  preview(name: string, override: PolicyOverride | null): EffectiveThresholds | undefined {
    return this.policies.get(name)?.withOverride(override);
  }

  onChange(listener: PolicyChangeListener): void {
    this.listeners.push(listener);
  }

  names(): string[] {
    return [...this.policies.keys()];
  }

  list(): RateLimitPolicy[] {
    return [...this.policies.values()].map((entry) => entry.effective.policy);
  }
}

function tiersKey(tiers: ReadonlyMap<string, TierThresholds>): string {
  return JSON.stringify([...tiers].sort(([a], [b]) => (a < b ? -1 : 1)));
}
