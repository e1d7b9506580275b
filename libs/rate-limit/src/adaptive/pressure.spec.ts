import fc from 'fast-check';
import { fleetPressureOf, FRESH_LOAD_MS, type InstanceLoad } from './fleet-pressure';
import {
  DEFAULT_PRESSURE_TARGETS,
  nextInstancePressure,
  pressureOf,
  type InstancePressure,
} from './pressure';

const warmUp = { warmUpMs: 10_000, emergencyAt: 1.5 };
const calm = { elu: 0.3, eventLoopDelayMs: 5, heap: 0.4, tickLatenessMs: 2 };

/** Reported pressure over ticks of 1 s, after the warm-up. */
function reported(raws: number[]): number[] {
  let state: InstancePressure | undefined;
  return raws.map((raw, i) => {
    state = nextInstancePressure(state, raw, 60_000 + i * 1_000, warmUp);
    return state.reported;
  });
}

describe('instance pressure', () => {
  it('is the highest signal over its target, and says which', () => {
    const p = pressureOf({ ...calm, elu: 0.9, cpu: 0.4 }, DEFAULT_PRESSURE_TARGETS);
    expect(p.value).toBeCloseTo(1.2, 10);
    expect(p.dominant).toBe('elu');
    expect(p.bySignal).toEqual({
      elu: expect.closeTo(1.2, 10),
      eventLoopDelayMs: 0.1,
      cpu: 0.5,
      heap: expect.closeTo(0.4 / 0.85, 10),
      tickLatenessMs: 0.008,
    });
  });

  it('leaves out a CPU it could not measure (no cgroup quota), never reads host load', () => {
    const p = pressureOf(calm, DEFAULT_PRESSURE_TARGETS);
    expect(p.bySignal.cpu).toBeUndefined();
    expect(p.value).toBeCloseTo(0.4 / 0.85, 10);
    expect(p.dominant).toBe('heap');
  });

  it('a 300 ms block every 10 s (6x the delay target on its tick) moves nothing', () => {
    // At 0.5x capacity: ELU 0.4 -> 0.53; the block's tick reads event-loop delay p99 300 ms.
    const blocked = pressureOf({ ...calm, eventLoopDelayMs: 300 }, DEFAULT_PRESSURE_TARGETS).value;
    expect(blocked).toBe(6);
    const raws = Array.from({ length: 60 }, (_, i) => (i % 10 === 5 ? blocked : 0.53));
    expect(Math.max(...reported(raws))).toBeCloseTo(0.53, 10);
  });

  it('a real overload is reported from its second tick on', () => {
    const out = reported([0.5, 0.5, 1.4, 1.4, 1.4, 1.4]);
    expect(out[2]).toBeCloseTo(0.5, 10);
    expect(out[3]).toBeGreaterThan(0.9);
    expect(out[5]).toBeGreaterThan(1.25);
  });

  it('reports only an emergency during the warm-up', () => {
    const first = nextInstancePressure(undefined, 1.2, 1_000, warmUp);
    expect(first.reported).toBe(0);
    expect(first.smoothed).toBe(1.2);
    // An emergency counts once it is confirmed (two ticks), like any pressure.
    const spike = nextInstancePressure(first, 2.5, 2_000, warmUp);
    expect(spike.reported).toBe(0);
    expect(nextInstancePressure(spike, 2.5, 3_000, warmUp).reported).toBeCloseTo(1.85, 10);
  });

  it('isolated spikes never raise what is reported above the calm ticks around them', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ base: fc.double({ min: 0, max: 0.9, noNaN: true }), spike: fc.boolean() }),
          { minLength: 2, maxLength: 100 },
        ),
        fc.double({ min: 1, max: 50, noNaN: true }),
        (ticks, height) => {
          const raws = ticks.map((t, i) =>
            t.spike && i > 0 && !ticks[i - 1].spike ? height : t.base,
          );
          const calmMax = Math.max(...raws.filter((r) => r < 1), 0);
          return reported(raws).every((r) => r <= calmMax + 1e-9);
        },
      ),
    );
  });
});

describe('fleet pressure', () => {
  const load = (id: string, pressure: number, rps: number, reportedAt = 0): InstanceLoad => ({
    id,
    pressure,
    rps,
    reportedAt,
    dominant: pressure > 1 ? 'elu' : 'heap',
  });

  it('weights each instance by the requests it serves', () => {
    const fleet = fleetPressureOf([load('a', 1.5, 300), load('b', 0.5, 100)], 0);
    expect(fleet.value).toBeCloseTo(1.25, 10);
    expect(fleet.overloadedShare).toBeCloseTo(0.75, 10);
    expect(fleet).toMatchObject({ instances: 2, overloaded: 1, dominant: 'elu' });
  });

  it('leaves out heartbeats older than 3 s; an idle instance weighs as one request a second', () => {
    const fleet = fleetPressureOf(
      [load('a', 2, 100, 0), load('stale', 0.1, 1_000, -FRESH_LOAD_MS - 1), load('idle', 0.2, 0)],
      0,
    );
    expect(fleet.instances).toBe(2);
    expect(fleet.value).toBeCloseTo((2 * 100 + 0.2) / 101, 10);
  });

  it('is calm and empty with no fresh heartbeat', () => {
    expect(fleetPressureOf([], 0)).toEqual({
      value: 0,
      overloadedShare: 0,
      instances: 0,
      overloaded: 0,
      dominant: undefined,
    });
  });
});
