import { DEFAULT_CONTROL_LAW } from './control-law';
import { directionChange, type Direction } from './direction-change';
import { initialControllerState, stepController, type Movement } from './fleet-controller';
import type { FleetPressure } from './fleet-pressure';

const law = DEFAULT_CONTROL_LAW;
const tiers = [
  { name: 'free', floor: 0.2 },
  { name: 'pro', floor: 0.5 },
  { name: 'enterprise', floor: 1 },
];
const settings = { law, maxLevel: 2, boostCeiling: 1.5 };
const fleet = (value: number): FleetPressure => ({
  value,
  overloadedShare: value > 1 ? 1 : 0,
  instances: 3,
  overloaded: value > 1 ? 3 : 0,
  dominant: 'elu',
});

/** Runs the controller over pressures (one a second) and collects the audit entries. */
function audit(pressures: number[], demandLimited = false) {
  let state = initialControllerState(law);
  let previous: Direction | undefined;
  const entries = [];
  for (const [t, p] of pressures.entries()) {
    const step = stepController(
      state,
      { now: t * 1_000, fleet: fleet(p), demandLimited },
      settings,
    );
    const entry = directionChange(previous, step.movement, state, step.state, fleet(p), tiers);
    if (entry) {
      entries.push({ t, ...entry });
      previous = entry.direction;
    }
    state = step.state;
  }
  return entries;
}

describe('directionChange (the audit of the fleet loop)', () => {
  it('records when shedding starts and when recovery starts, not every step', () => {
    const entries = audit([...Array(6).fill(1.3), ...Array(20).fill(0.5)]);
    expect(entries.map((e) => [e.t, e.direction, e.previous])).toEqual([
      [0, 'shed', undefined],
      [10, 'recover', 'shed'],
    ]);
    expect(entries[0].summary).toBe(
      'shed: free x0.60, pro x1.00, enterprise x1.00; fleet pressure 1.30, elu dominant, 3/3 instances above target',
    );
    expect(entries[1].multipliers).toEqual({ free: 0.2, pro: 0.6, enterprise: 1 });
  });

  it('records the boost starting and being taken back', () => {
    const entries = audit([0.3, 0.3, 0.3, 1.2], true);
    expect(entries.map((e) => e.direction)).toEqual(['boost', 'unboost']);
    expect(entries[0].multipliers.free).toBeCloseTo(1.05, 10);
  });

  it('records the start of damping even without a change of direction', () => {
    const state = {
      ...initialControllerState(law),
      lastDirection: 'fall' as const,
      reversals: [1, 2, 3, 4],
    };
    const step = stepController(
      state,
      { now: 5_000, fleet: fleet(1.3), demandLimited: false },
      settings,
    );
    expect(step.state.damped).toBe(true);
    const entry = directionChange('shed', step.movement, state, step.state, fleet(1.3), tiers);
    expect(entry).toMatchObject({ direction: 'shed', damped: true });
    expect(entry!.summary).toMatch(/^shed \(damped: cool-down now 10000 ms\)/);
  });

  it.each<Movement>(['hold', 'cooling-down', 'local', 'frozen'])(
    'records nothing on %s',
    (movement) => {
      const state = initialControllerState(law);
      expect(directionChange('shed', movement, state, state, fleet(0.9), tiers)).toBeUndefined();
    },
  );
});
