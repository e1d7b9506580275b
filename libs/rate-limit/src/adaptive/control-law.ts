/**
 * The fleet controller's constants (SPEC section 15): how far pressure must move before the
 * thresholds do, how fast they move, and what slows them down when they swing. Pressure 1.0 is
 * "at target" (see pressure.ts).
 */
export interface ControlLaw {
  /** Above this fleet pressure the level rises (thresholds shrink). */
  shrinkAbove: number;
  /** Below this the level falls back (after the cool-down); between the two: hold. */
  recoverBelow: number;
  /** Below this, at level 0, the boost may rise (when clients are being rejected). */
  boostBelow: number;
  /**
   * Share of the fleet's requests that must come from instances above target for the fleet loop
   * to act; below it the overload is one instance's, for its local loop.
   */
  minOverloadedShare: number;
  /** Pressure at which one tick takes the largest step at once. */
  emergencyAt: number;
  /** Bounds of one tick's rise of the level: `clamp(2 x (P - 1), min, max)`. */
  minShrinkStep: number;
  maxShrinkStep: number;
  /**
   * One tick's fall of the level. 0.2 per 1 s tick: two tiers at their floors are back to
   * configured 10 s after the cool-down (SPEC: within 20 s of the load dropping).
   */
  recoverStep: number;
  /** No recovery until this long after the last rise. */
  coolDownMs: number;
  /** One tick's rise of the boost, and its ceiling as a multiplier (1.5: 150 % of configured). */
  boostStep: number;
  boostCeiling: number;
  /** More reversals than this within `reversalWindowMs` count as oscillation... */
  maxReversals: number;
  reversalWindowMs: number;
  /** ...which doubles the cool-down (up to this) and lowers `recoverBelow` to this... */
  dampedCoolDownMaxMs: number;
  dampedRecoverBelow: number;
  /** ...until this long passes with no reversal. */
  calmResetMs: number;
}

export const DEFAULT_CONTROL_LAW: Readonly<ControlLaw> = Object.freeze({
  shrinkAbove: 1.0,
  recoverBelow: 0.8,
  boostBelow: 0.6,
  minOverloadedShare: 0.5,
  emergencyAt: 1.5,
  minShrinkStep: 0.1,
  maxShrinkStep: 0.5,
  recoverStep: 0.2,
  coolDownMs: 5_000,
  boostStep: 0.05,
  boostCeiling: 1.5,
  maxReversals: 4,
  reversalWindowMs: 60_000,
  dampedCoolDownMaxMs: 20_000,
  dampedRecoverBelow: 0.7,
  calmResetMs: 300_000,
});

/**
 * The local loop's law, for its 250 ms ticks: the same dead band and steps up (so up to two
 * tiers a second); it protects the process, not a contract, so it gives back after 2 s (its
 * shedding ends a backlog in seconds, after which holding on would only reject requests it could
 * serve), 0.4 of a tier a second, and never boosts.
 */
export const DEFAULT_LOCAL_LAW: Readonly<ControlLaw> = Object.freeze({
  ...DEFAULT_CONTROL_LAW,
  recoverStep: 0.1,
  coolDownMs: 2_000,
  boostCeiling: 1,
});

/** The highest boost ceiling a policy may ask for (3x its configured thresholds). */
export const MAX_BOOST_CEILING = 3;

/**
 * A value on a 0.001 grid: the controller's sums of steps land exactly on 0 and on the
 * ceiling, and a heartbeat carries three decimals.
 */
export const onGrid = (value: number): number => Math.round(value * 1_000) / 1_000;

export const clamp = (value: number, min: number, max: number): number =>
  Math.min(max, Math.max(min, value));
