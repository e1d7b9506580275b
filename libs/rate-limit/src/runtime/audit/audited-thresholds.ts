import type { EffectiveThresholds } from '../../registry/registered-policy';

/** A policy's thresholds in force as the audit log shows them: what an operator compares. */
export interface AuditedThresholds {
  readonly algo: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly burst: number;
  readonly mode: string;
  readonly enabled: boolean;
  readonly tiers?: Record<string, { limit: number; windowMs: number; burst: number }>;
}

export function auditedThresholds(effective: EffectiveThresholds): AuditedThresholds {
  const { algo, limit, windowMs, burst, mode, enabled } = effective.policy;
  const thresholds: AuditedThresholds = { algo, limit, windowMs, burst, mode, enabled };
  if (effective.tiers.size === 0) return thresholds;
  const tiers: NonNullable<AuditedThresholds['tiers']> = {};
  for (const [name, tier] of effective.tiers) {
    tiers[name] = { limit: tier.limit, windowMs: tier.windowMs, burst: tier.burst };
  }
  return { ...thresholds, tiers };
}
