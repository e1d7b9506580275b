import { DEFAULT_CONTROL_LAW } from './control-law';
import {
  freezeController,
  initialControllerState,
  resetController,
  stepController,
  type ControllerSettings,
  type ControllerState,
  type Movement,
} from './fleet-controller';
import type { FleetPressure } from './fleet-pressure';

/** Scripted scenarios of the fleet loop, one tick per second, on an injected clock. */

const law = DEFAULT_CONTROL_LAW;
const settings: ControllerSettings = { law, maxLevel: 2, boostCeiling: 1.5 };
const fleet = (value: number, overloadedShare = value > 1 ? 1 : 0): FleetPressure => ({
  value,
  overloadedShare,
  instances: 3,
  overloaded: overloadedShare > 0 ? 3 : 0,
  dominant: 'elu',
});

interface Tick {
  t: number;
  level: number;
  boost: number;
  movement: Movement;
}

/** Runs the controller over `seconds` ticks; `at(t)` gives each tick's fleet and demand. */
function run(
  seconds: number,
  at: (t: number) => { fleet: FleetPressure; demandLimited?: boolean },
  start: ControllerState = initialControllerState(law),
  from = 0,
): { ticks: Tick[]; state: ControllerState } {
  let state = start;
  const ticks: Tick[] = [];
  for (let t = from; t < from + seconds; t++) {
    const input = at(t);
    const step = stepController(
      state,
      { now: t * 1_000, fleet: input.fleet, demandLimited: input.demandLimited ?? false },
      settings,
    );
    state = step.state;
    ticks.push({ t, level: state.level, boost: state.boost, movement: step.movement });
  }
  return { ticks, state };
}

describe('fleet controller (scripted)', () => {
  it('a step overload raises the level by at most 0.5 a tick, then recovers after the cool-down', () => {
    const overload = run(10, () => ({ fleet: fleet(1.3) }));
    expect(overload.ticks.map((t) => t.level)).toEqual([0.5, 1, 1.5, 2, 2, 2, 2, 2, 2, 2]);
    const calm = run(20, () => ({ fleet: fleet(0.5) }), overload.state, 10);
    // Last rise at t=9: cooling down until t=14, then 0.2 a tick: 2 -> 0 in 10 ticks (t=23).
    expect(calm.ticks.filter((t) => t.movement === 'cooling-down').map((t) => t.t)).toEqual([
      10, 11, 12, 13,
    ]);
    const backAt = calm.ticks.find((t) => t.level === 0)!.t;
    expect(backAt).toBe(23);
    expect(backAt - 9).toBeLessThanOrEqual(20);
  });

  it('a ramp moves in small steps near the target and holds in the dead band', () => {
    const { ticks } = run(12, (t) => ({ fleet: fleet(0.5 + t * 0.05) }));
    // 0.5 .. 1.05: nothing until above 1.0, then the smallest step (0.1).
    expect(ticks.filter((t) => t.level > 0).map((t) => [t.t, t.level])).toEqual([[11, 0.1]]);
    expect(ticks.every((t) => t.level === 0 || t.t === 11)).toBe(true);
    expect(ticks.slice(6, 11).every((t) => t.movement === 'hold')).toBe(true);
  });

  it('an emergency takes the largest step at once', () => {
    const { ticks } = run(1, () => ({ fleet: fleet(2.5) }));
    expect(ticks[0].level).toBe(law.maxShrinkStep);
  });

  it('an overload of one instance (under half of the requests) is left to its local loop', () => {
    const { ticks } = run(5, () => ({ fleet: fleet(1.4, 0.34) }));
    expect(ticks.every((t) => t.level === 0 && t.movement === 'local')).toBe(true);
  });

  it('boosts only while pressure is low and clients are rejected, up to the ceiling', () => {
    const idle = run(5, () => ({ fleet: fleet(0.3), demandLimited: false }));
    expect(idle.ticks.every((t) => t.boost === 0)).toBe(true);
    const limited = run(15, () => ({ fleet: fleet(0.3), demandLimited: true }));
    expect(limited.ticks.map((t) => t.boost)[9]).toBeCloseTo(0.5, 10);
    expect(limited.state.boost).toBeCloseTo(0.5, 10);
    // Pressure in the 0.6-0.8 band: the boost is held, not raised.
    const held = run(3, () => ({ fleet: fleet(0.7), demandLimited: true }), limited.state, 15);
    expect(held.ticks.map((t) => t.movement)).toEqual(['hold', 'hold', 'hold']);
    // Overload: the boost goes first (at most 0.5 a tick), then the level rises.
    const overload = run(2, () => ({ fleet: fleet(1.2) }), held.state, 18);
    expect(overload.ticks.map((t) => [t.movement, t.boost])).toEqual([
      ['unboost', 0],
      ['rise', 0],
    ]);
    expect(overload.state.level).toBeCloseTo(0.4, 10);
  });

  it('the boost decays once nobody is limited', () => {
    const limited = run(4, () => ({ fleet: fleet(0.3), demandLimited: true }));
    const after = run(4, () => ({ fleet: fleet(0.3), demandLimited: false }), limited.state, 4);
    expect(after.ticks.map((t) => t.movement)).toEqual([
      'unboost',
      'unboost',
      'unboost',
      'unboost',
    ]);
    expect(after.state.boost).toBeCloseTo(0, 10);
  });

  it('a sawtooth load that reverses too often doubles the cool-down and widens the dead band', () => {
    // 2 s of overload every 40 s: 2 reversals per cycle, never more than 4 in 60 s.
    let state = initialControllerState(law);
    let t = 0;
    const reversalsAt: number[] = [];
    while (t < 200 && !state.damped) {
      const overloaded = t % 40 < 2;
      const step = stepController(
        state,
        { now: t * 1_000, fleet: fleet(overloaded ? 1.3 : 0.5), demandLimited: false },
        settings,
      );
      if (step.reversed) reversalsAt.push(t);
      state = step.state;
      t++;
    }
    expect(state.damped).toBe(false);
    // Every 6 s, with a 1 s cool-down: the fifth reversal within 60 s damps the controller.
    const fastLaw = { ...law, coolDownMs: 1_000 };
    state = initialControllerState(fastLaw);
    reversalsAt.length = 0;
    for (t = 0; t < 60 && !state.damped; t++) {
      const step = stepController(
        state,
        { now: t * 1_000, fleet: fleet(t % 6 === 0 ? 1.3 : 0.5), demandLimited: false },
        { ...settings, law: fastLaw },
      );
      if (step.reversed) reversalsAt.push(t);
      state = step.state;
    }
    expect(state.damped).toBe(true);
    expect(reversalsAt.length).toBe(law.maxReversals + 1);
    expect(state.coolDownMs).toBe(2_000);
    // Damped: 0.75 is no longer below the (widened) dead band's lower edge.
    const damped = stepController(
      { ...state, level: 1, lastRiseAt: 0 },
      { now: t * 1_000, fleet: fleet(0.75), demandLimited: false },
      settings,
    );
    expect(damped.movement).toBe('hold');
    // After 5 calm minutes the cool-down and the dead band are the law's again.
    const calm = stepController(
      state,
      { now: state.lastReversalAt! + law.calmResetMs, fleet: fleet(0.9), demandLimited: false },
      settings,
    );
    expect(calm.state).toMatchObject({ damped: false, coolDownMs: law.coolDownMs });
  });

  it('a freeze holds level and boost until it ends; a reset returns to configured at once', () => {
    const shedding = run(3, () => ({ fleet: fleet(1.3) }));
    const frozen = freezeController(shedding.state, 10_000);
    const during = run(5, () => ({ fleet: fleet(1.8) }), frozen, 3);
    expect(during.ticks.every((t) => t.movement === 'frozen' && t.level === 1.5)).toBe(true);
    const after = run(1, () => ({ fleet: fleet(1.3) }), during.state, 10);
    expect(after.ticks[0]).toMatchObject({ movement: 'rise', level: 2 });
    expect(resetController(law)).toEqual(initialControllerState(law));
  });
});
