import type { DecisionCounts } from '../decision/decision-counts';
import type { PolicyOverride } from '../policy/policy-thresholds';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { PolicyRegistry } from '../registry/policy-registry';
import type { PolicyTotals } from '../runtime/policy-stats.service';
import type { PolicyThresholds, PolicyView, TierView } from './policy-view.interface';
import { routesOf, type RoutePrefixes } from '../registry/route-paths';

/** One policy as the admin API shows it, from the registry and the policy's totals. */
export function policyView(
  registry: PolicyRegistry,
  name: string,
  totals: PolicyTotals,
  prefixes: RoutePrefixes,
): PolicyView {
  const override = registry.override(name);
  return {
    name,
    ...thresholds(registry.get(name)!),
    routes: routesOf(registry.usages(name), prefixes),
    defaults: thresholds(registry.defaults(name)!),
    override: override && policyFields(override),
    stats: counts(totals),
    tiers: tierViews(registry, name, override?.tiers, totals.tiers),
  };
}

function tierViews(
  registry: PolicyRegistry,
  name: string,
  overrides: PolicyOverride['tiers'],
  stats: PolicyTotals['tiers'],
): TierView[] {
  const declared = registry.declaredTiers(name);
  return [...registry.tiers(name)].map(([tier, effective]) => ({
    name: tier,
    limit: effective.limit,
    windowMs: effective.windowMs,
    burst: effective.burst,
    defaults: { ...declared.get(tier) },
    // Own properties only: a tier named like a member of Object.prototype must not find it.
    override: overrides && Object.hasOwn(overrides, tier) ? { ...overrides[tier] } : null,
    stats: counts(Object.hasOwn(stats, tier) ? stats[tier] : NO_COUNTS),
  }));
}

const NO_COUNTS: DecisionCounts = { allowed: 0, rejected: 0, shadowRejected: 0 };

/** A copy of the counts alone (the policy's totals also hold its tiers', shown on each tier). */
function counts({ allowed, rejected, shadowRejected }: DecisionCounts): DecisionCounts {
  return { allowed, rejected, shadowRejected };
}

/**
 * The tiers' overrides are shown on each tier, not twice; a hash that overrides only tiers
 * leaves the policy's own override null (its `updatedAt` is the tiers' change).
 */
function policyFields({
  tiers: _tiers,
  ...own
}: PolicyOverride): Omit<PolicyOverride, 'tiers'> | null {
  return Object.keys(own).some((field) => field !== 'updatedAt') ? own : null;
}

function thresholds(policy: RateLimitPolicy): PolicyThresholds {
  const { algo, limit, windowMs, burst, mode, enabled } = policy;
  return { algo, limit, windowMs, burst, mode, enabled };
}
