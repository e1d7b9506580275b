import { clamp } from './control-law';
import { DEFAULT_PRESSURE_FILTER, type PressureFilter } from './pressure';
import { isExempt, tierMultipliers, type AdaptiveTier } from './tier-multipliers';

/**
 * The local loop samples and decides every 250 ms: an overload's backlog grows by twice the
 * capacity each second at 3x, so a loop that saw saturation only after a second (two 500 ms
 * ticks) left a backlog that kept goodput under 80 % of capacity for 10 s in the fleet model.
 */
export const LOCAL_TICK_MS = 250;

/**
 * Delays confirmed over the same 3 s as the heartbeat's, saturation over three ticks (750 ms):
 * a 300 ms block can fill two ticks, and confirmed over two it made instances shed at 0.5x C in
 * the adaptive benchmark.
 */
export const LOCAL_PRESSURE_FILTER: Readonly<PressureFilter> = Object.freeze({
  ...DEFAULT_PRESSURE_FILTER,
  delayConfirmTicks: 12,
  loadConfirmTicks: 3,
});

/**
 * Event-loop utilisation this close to 1 over a whole tick is saturation: the loop was never
 * idle, and by how much demand exceeds it no utilisation can say (at a 0.9 target 1.0 reads
 * 1.11x whether the demand is 1.2x or 3x, a step of 0.2 tier a tick). From rest, saturation over
 * the confirm ticks is the start of an overload of unknown size, whose backlog grows by twice
 * the capacity a second at 3x: the local loop takes its largest steps while it lasts (in the
 * adaptive benchmark the top tier lost 4 % of its requests to timeouts in the first seconds
 * without this, 1.6 % with it). Once shedding, saturation is the edge of the level it seeks, and
 * taken as an emergency there it swung between all and half of the tiers it sheds.
 */
export const SATURATED_ELU = 0.98;
export const ONSET_PRESSURE = 2;

/**
 * The local loop's answer for one request: the share of a tier's requests an instance rejects
 * on its own while it is overloaded (alone, or before the fleet loop's thresholds take hold, or
 * cut off from Redis). It runs the control law on the instance's own pressure and sheds by the
 * waterfall: at local level `k` a tier drops `1 - multiplier` of its requests. The floors are
 * the fleet's contracts on thresholds; this loop keeps the process alive, so a tier that can be
 * shed can lose all its requests here, and the lowest loses all before the next loses any.
 * Exempt tiers are never dropped: an operator exempted them, and while the backlog of an
 * overload drains, every delay signal says "survival" although shedding the rest already
 * suffices (tried in the fleet model: it cost the exempt tier a tenth of its requests).
 */
export function localDropShares(
  tiers: readonly AdaptiveTier[],
  localLevel: number,
): Record<string, number> {
  const survivalFloors = tiers.map((tier) => (isExempt(tier) ? tier : { ...tier, floor: 0 }));
  const multipliers = tierMultipliers(survivalFloors, localLevel, 0);
  const shares: Record<string, number> = {};
  for (const tier of tiers) shares[tier.name] = clamp(1 - multipliers[tier.name], 0, 1);
  return shares;
}
