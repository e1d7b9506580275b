import { clamp } from './control-law';

/**
 * One tier in shedding order: the first is shed first. Its floor is the smallest share of its
 * configured thresholds it keeps (1 = exempt: never shed).
 */
export interface AdaptiveTier {
  name: string;
  floor: number;
}

/** A tier with floor 1 is exempt: it takes no place in the waterfall. */
export const isExempt = (tier: AdaptiveTier): boolean => tier.floor >= 1;

/**
 * The waterfall: at level `k`, the `j`-th tier that can be shed (0 = shed first) keeps
 * `1 - clamp(k - j, 0, 1) x (1 - floor)` of its thresholds. So the first reaches its floor
 * (k = 1) before the second is touched, and so on; exempt tiers keep 1. At level 0 every tier
 * has the boost.
 */
export function tierMultipliers(
  tiers: readonly AdaptiveTier[],
  level: number,
  boost: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  let position = 0;
  for (const tier of tiers) {
    if (level <= 0) out[tier.name] = 1 + boost;
    else if (isExempt(tier)) out[tier.name] = 1;
    else out[tier.name] = shedMultiplier(clamp(level - position, 0, 1), tier.floor);
    if (!isExempt(tier)) position++;
  }
  return out;
}

/** A tier fully shed keeps exactly its floor, one untouched exactly 1 (no rounding residue). */
function shedMultiplier(shed: number, floor: number): number {
  if (shed <= 0) return 1;
  if (shed >= 1) return floor;
  return 1 - shed * (1 - floor);
}

/** The level at which every tier that can be shed is at its floor: the controller's ceiling. */
export const maxLevel = (tiers: readonly AdaptiveTier[]): number =>
  tiers.filter((tier) => !isExempt(tier)).length;
