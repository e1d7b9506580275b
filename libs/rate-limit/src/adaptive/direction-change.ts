import type { ControllerState, Movement } from './fleet-controller';
import type { FleetPressure } from './fleet-pressure';
import { tierMultipliers, type AdaptiveTier } from './tier-multipliers';

/** Which way the fleet loop moves the thresholds. */
export type Direction = 'shed' | 'recover' | 'boost' | 'unboost';

const DIRECTION_OF: Partial<Record<Movement, Direction>> = {
  rise: 'shed',
  fall: 'recover',
  boost: 'boost',
  unboost: 'unboost',
};

/** An audit entry: the loop turned, with the signals that turned it (SPEC section 15). */
export interface DirectionChange {
  direction: Direction;
  /** The direction before (undefined: the first move since start). */
  previous: Direction | undefined;
  /** The controller started damping (too many reversals) on this tick. */
  damped: boolean;
  level: number;
  boost: number;
  multipliers: Record<string, number>;
  pressure: number;
  summary: string;
}

/**
 * The audit entry for one fleet tick, or undefined when the loop kept its direction (or held):
 * every change of direction is recorded, steps in the same direction are not (they would be
 * one entry a second during an overload).
 */
export function directionChange(
  previous: Direction | undefined,
  movement: Movement,
  before: ControllerState,
  after: ControllerState,
  fleet: FleetPressure,
  tiers: readonly AdaptiveTier[],
): DirectionChange | undefined {
  const direction = DIRECTION_OF[movement];
  const damped = after.damped && !before.damped;
  if (direction === undefined || (direction === previous && !damped)) return undefined;
  const multipliers = tierMultipliers(tiers, after.level, after.boost);
  const shown = Object.entries(multipliers)
    .map(([tier, m]) => `${tier} x${m.toFixed(2)}`)
    .join(', ');
  const signal = fleet.dominant ?? 'no signal';
  const summary =
    `${direction}${damped ? ' (damped: cool-down now ' + after.coolDownMs + ' ms)' : ''}: ` +
    `${shown}; fleet pressure ${fleet.value.toFixed(2)}, ${signal} dominant, ` +
    `${fleet.overloaded}/${fleet.instances} instances above target`;
  return {
    direction,
    previous,
    damped,
    level: after.level,
    boost: after.boost,
    multipliers,
    pressure: fleet.value,
    summary,
  };
}
