import { DEFAULT_CONTROL_LAW } from './control-law';
import { directionChange, type Direction, type DirectionChange } from './direction-change';
import { stepController, type ControllerState } from './fleet-controller';
import { fleetPressureOf } from './fleet-pressure';
import { decodeLoad } from './load-codec';
import { maxLevel, type AdaptiveTier } from './tier-multipliers';

/** A boost needs at least this share of some instance's requests rejected by configured limits. */
const LIMITED_SHARE = 0.01;

/** What the leader's beat brought: Redis time and every fresh instance's load as stored. */
export interface LeaderInput {
  nowMs: number;
  loads: readonly { id: string; reportedAt: number; load: string }[];
}

/**
 * One tick of the fleet loop on the leader: every fresh load (hostile ones dropped) into the
 * fleet's pressure, the control law's step, and the audit entry when the direction turned.
 */
export function leaderStep(
  state: ControllerState,
  input: LeaderInput,
  tiers: readonly AdaptiveTier[],
  boostCeiling: number,
  direction: Direction | undefined,
): { state: ControllerState; change: DirectionChange | undefined } {
  const loads = input.loads
    .map((l) => decodeLoad(l.id, l.reportedAt, l.load))
    .filter((l) => l !== undefined);
  const fleet = fleetPressureOf(loads, input.nowMs);
  const step = stepController(
    state,
    { now: input.nowMs, fleet, demandLimited: loads.some((l) => l.limited >= LIMITED_SHARE) },
    { law: DEFAULT_CONTROL_LAW, maxLevel: maxLevel(tiers), boostCeiling },
  );
  return {
    state: step.state,
    change: directionChange(direction, step.movement, state, step.state, fleet, tiers),
  };
}
