import { clamp, onGrid, type ControlLaw } from './control-law';
import type { FleetPressure } from './fleet-pressure';

/**
 * The fleet loop's control law as a pure step: state and one tick's measures in, the next state
 * out. No timers and no clock of its own, so every scenario can be replayed exactly.
 *
 * - Level `k` (0 = configured thresholds, up to one per tier that can be shed) rises when the
 *   fleet is above target, by `clamp(2 x (P - 1))` per tick (the largest step at once in an
 *   emergency), and falls by `recoverStep` per tick once pressure is below `recoverBelow` and the
 *   cool-down since the last rise has passed. Between the two: hold (the dead band).
 * - Only a fleet-wide overload moves it: at least `law.minOverloadedShare` of the fleet's requests
 *   must come from instances above target, else the problem is one instance's (the local loop).
 * - The boost (thresholds above configured) rises only at level 0, while pressure is below
 *   `boostBelow` AND clients are being rejected by their configured limits; it is taken back
 *   before the level rises, and decays once nobody is limited.
 * - Oscillation (more than `maxReversals` reversals in `reversalWindowMs`) doubles the cool-down
 *   and widens the dead band, until `calmResetMs` passes with no reversal.
 */
export interface ControllerState {
  level: number;
  boost: number;
  /** When the level last rose (the cool-down runs from there). */
  lastRiseAt?: number;
  /** The level's last movement, to count reversals. */
  lastDirection?: 'rise' | 'fall';
  /** Times of recent reversals (within the window). */
  reversals: number[];
  lastReversalAt?: number;
  /** Cool-down in force (doubled while damped). */
  coolDownMs: number;
  damped: boolean;
  /** An operator's freeze: level and boost held until then. */
  frozenUntil?: number;
}

export type Movement =
  'rise' | 'fall' | 'boost' | 'unboost' | 'hold' | 'cooling-down' | 'local' | 'frozen';

export interface TickInput {
  now: number;
  fleet: FleetPressure;
  /** Whether some tier had at least 1 % of its requests rejected by its configured limits. */
  demandLimited: boolean;
}

export interface ControllerSettings {
  law: ControlLaw;
  /** Highest level: the number of tiers that can be shed (tier-multipliers.maxLevel). */
  maxLevel: number;
  /** Boost ceiling as a multiplier (1 = never boost). */
  boostCeiling: number;
}

export interface Step {
  state: ControllerState;
  movement: Movement;
  /** The level reversed its direction on this tick. */
  reversed: boolean;
}

export const initialControllerState = (law: ControlLaw): ControllerState => ({
  level: 0,
  boost: 0,
  reversals: [],
  coolDownMs: law.coolDownMs,
  damped: false,
});

export function stepController(
  previous: ControllerState,
  input: TickInput,
  settings: ControllerSettings,
): Step {
  const { law } = settings;
  const { now } = input;
  let state = calmDown(previous, now, law);
  if (state.frozenUntil !== undefined && now < state.frozenUntil)
    return { state, movement: 'frozen', reversed: false };
  if (state.frozenUntil !== undefined) state = { ...state, frozenUntil: undefined };

  const pressure = input.fleet.value;
  const recoverBelow = state.damped ? law.dampedRecoverBelow : law.recoverBelow;
  if (pressure > law.shrinkAbove) {
    if (input.fleet.overloadedShare < law.minOverloadedShare)
      return { state, movement: 'local', reversed: false };
    if (state.boost > 0) {
      const boost = onGrid(Math.max(0, state.boost - law.maxShrinkStep));
      return { state: { ...state, boost }, movement: 'unboost', reversed: false };
    }
    const step =
      pressure >= law.emergencyAt
        ? law.maxShrinkStep
        : clamp(2 * (pressure - 1), law.minShrinkStep, law.maxShrinkStep);
    const level = onGrid(Math.min(settings.maxLevel, state.level + step));
    return moveLevel({ ...state, level, lastRiseAt: now }, 'rise', now, law);
  }
  if (pressure < recoverBelow && state.level > 0) {
    if (state.lastRiseAt !== undefined && now - state.lastRiseAt < state.coolDownMs)
      return { state, movement: 'cooling-down', reversed: false };
    const level = onGrid(Math.max(0, state.level - law.recoverStep));
    return moveLevel({ ...state, level }, 'fall', now, law);
  }
  if (state.level === 0) return moveBoost(state, pressure, input.demandLimited, settings);
  return { state, movement: 'hold', reversed: false };
}

function moveLevel(
  state: ControllerState,
  direction: 'rise' | 'fall',
  now: number,
  law: ControlLaw,
): Step {
  const reversed = state.lastDirection !== undefined && state.lastDirection !== direction;
  if (!reversed)
    return { state: { ...state, lastDirection: direction }, movement: direction, reversed };
  const reversals = [...state.reversals, now];
  const oscillating = reversals.length > law.maxReversals;
  return {
    state: {
      ...state,
      lastDirection: direction,
      lastReversalAt: now,
      reversals: oscillating ? [] : reversals,
      damped: state.damped || oscillating,
      coolDownMs: oscillating
        ? Math.min(law.dampedCoolDownMaxMs, state.coolDownMs * 2)
        : state.coolDownMs,
    },
    movement: direction,
    reversed,
  };
}

function moveBoost(
  state: ControllerState,
  pressure: number,
  demandLimited: boolean,
  settings: ControllerSettings,
): Step {
  const { law } = settings;
  const ceiling = Math.max(0, settings.boostCeiling - 1);
  if (pressure < law.boostBelow && demandLimited && state.boost < ceiling) {
    const boost = Math.min(ceiling, onGrid(state.boost + law.boostStep));
    return { state: { ...state, boost }, movement: 'boost', reversed: false };
  }
  if (!demandLimited && state.boost > 0) {
    const boost = onGrid(Math.max(0, state.boost - law.boostStep));
    return { state: { ...state, boost }, movement: 'unboost', reversed: false };
  }
  return { state, movement: 'hold', reversed: false };
}

/** Reversals leave the window; a damped controller calms down after `calmResetMs`. */
function calmDown(state: ControllerState, now: number, law: ControlLaw): ControllerState {
  const reversals = state.reversals.filter((t) => now - t < law.reversalWindowMs);
  const calm =
    state.damped &&
    state.lastReversalAt !== undefined &&
    now - state.lastReversalAt >= law.calmResetMs;
  if (!calm && reversals.length === state.reversals.length) return state;
  return calm
    ? { ...state, reversals, damped: false, coolDownMs: law.coolDownMs }
    : { ...state, reversals };
}

/** An operator's freeze: level and boost stay as they are until `until`. */
export const freezeController = (state: ControllerState, until: number): ControllerState => ({
  ...state,
  frozenUntil: until,
});

/** An operator's reset: configured thresholds at once, nothing remembered. */
export const resetController = (law: ControlLaw): ControllerState => initialControllerState(law);
