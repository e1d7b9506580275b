import fc from 'fast-check';
import { DEFAULT_CONTROL_LAW } from './control-law';
import {
  freezeController,
  initialControllerState,
  stepController,
  type ControllerSettings,
} from './fleet-controller';
import { tierMultipliers, type AdaptiveTier } from './tier-multipliers';

/**
 * Properties of the fleet loop over arbitrary tick sequences (pressure, share of overloaded
 * traffic, whether clients are limited, irregular tick spacing). A failure prints its seed and
 * path: pass them to `fc.assert(..., { seed, path })` to replay it.
 */

const law = DEFAULT_CONTROL_LAW;
const tick = fc.record({
  pressure: fc.double({ min: 0, max: 4, noNaN: true }),
  overloadedShare: fc.double({ min: 0, max: 1, noNaN: true }),
  demandLimited: fc.boolean(),
  gapMs: fc.integer({ min: 200, max: 3_000 }),
});
const tiers = fc
  .array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 })
  .map((floors) => floors.map((floor, i): AdaptiveTier => ({ name: `t${i}`, floor })));
const ceiling = fc.double({ min: 1, max: 3, noNaN: true });

type Tick = typeof tick extends fc.Arbitrary<infer T> ? T : never;

function* replay(ticks: Tick[], settings: ControllerSettings) {
  let state = initialControllerState(law);
  let now = 0;
  for (const t of ticks) {
    now += t.gapMs;
    const before = state;
    const step = stepController(
      state,
      {
        now,
        fleet: {
          value: t.pressure,
          overloadedShare: t.overloadedShare,
          instances: 3,
          overloaded: 0,
          dominant: 'elu',
        },
        demandLimited: t.demandLimited,
      },
      settings,
    );
    state = step.state;
    yield { before, step, now };
  }
}

describe('fleet controller (properties)', () => {
  it('level and boost stay within their bounds; a boost only at level 0', () => {
    fc.assert(
      fc.property(fc.array(tick, { maxLength: 200 }), tiers, ceiling, (ticks, ts, c) => {
        const settings = { law, maxLevel: ts.length, boostCeiling: c };
        for (const { step } of replay(ticks, settings)) {
          const { level, boost } = step.state;
          if (level < 0 || level > ts.length) return false;
          if (boost < 0 || boost > c - 1 + 1e-9) return false;
          if (boost > 0 && level > 0) return false;
        }
        return true;
      }),
    );
  });

  it('every multiplier stays within [floor, ceiling] and moves at most -0.5 / +0.2 a tick', () => {
    fc.assert(
      fc.property(fc.array(tick, { maxLength: 200 }), tiers, ceiling, (ticks, ts, c) => {
        const settings = { law, maxLevel: ts.length, boostCeiling: c };
        for (const { before, step } of replay(ticks, settings)) {
          const was = tierMultipliers(ts, before.level, before.boost);
          const now = tierMultipliers(ts, step.state.level, step.state.boost);
          for (const tier of ts) {
            const m = now[tier.name];
            if (m < tier.floor - 1e-9 || m > c + 1e-9) return false;
            const moved = m - was[tier.name];
            if (moved < -0.5 - 1e-9 || moved > 0.2 + 1e-9) return false;
          }
        }
        return true;
      }),
    );
  });

  it('lower tiers are shed first: a tier is cut only once every tier before it is at its floor', () => {
    fc.assert(
      fc.property(tiers, fc.double({ min: 0, max: 4, noNaN: true }), (ts, level) => {
        const m = tierMultipliers(ts, level, 0);
        const sheddable = ts.filter((t) => t.floor < 1);
        return sheddable.every(
          (tier, j) =>
            m[tier.name] >= 1 ||
            sheddable.slice(0, j).every((lower) => Math.abs(m[lower.name] - lower.floor) < 1e-9),
        );
      }),
    );
  });

  it('never recovers during the cool-down after a rise', () => {
    fc.assert(
      fc.property(fc.array(tick, { maxLength: 200 }), (ticks) => {
        const settings = { law, maxLevel: 3, boostCeiling: 1.5 };
        for (const { before, step, now } of replay(ticks, settings)) {
          if (step.movement !== 'fall') continue;
          if (before.lastRiseAt !== undefined && now - before.lastRiseAt < before.coolDownMs)
            return false;
        }
        return true;
      }),
    );
  });

  it('a frozen controller changes nothing until the freeze ends', () => {
    fc.assert(
      fc.property(fc.array(tick, { maxLength: 50 }), (ticks) => {
        const settings = { law, maxLevel: 3, boostCeiling: 1.5 };
        let state = freezeController({ ...initialControllerState(law), level: 1.3 }, 1e12);
        let now = 0;
        for (const t of ticks) {
          now += t.gapMs;
          const fleet = {
            value: t.pressure,
            overloadedShare: t.overloadedShare,
            instances: 1,
            overloaded: 0,
            dominant: 'elu' as const,
          };
          const step = stepController(
            state,
            { now, fleet, demandLimited: t.demandLimited },
            settings,
          );
          if (step.movement !== 'frozen' || step.state.level !== 1.3) return false;
          state = step.state;
        }
        return true;
      }),
    );
  });
});
