import fc from 'fast-check';
import { DEFAULT_CONTROL_LAW } from './control-law';
import { fleetPressureOf, FRESH_LOAD_MS, type InstanceLoad } from './fleet-pressure';
import {
  DEFAULT_PRESSURE_FILTER,
  DEFAULT_PRESSURE_TARGETS,
  nextInstancePressure,
  pressureOf,
  type InstancePressure,
  type SignalName,
} from './pressure';

const warmUp = DEFAULT_PRESSURE_FILTER;
const calm = { elu: 0.3, eventLoopDelayMs: 5, heap: 0.4, tickLatenessMs: 2 };

type Signals = Partial<Record<SignalName, number>>;

/** Reported pressure over ticks of 1 s, after the warm-up. */
function reported(ticks: Signals[]): number[] {
  let state: InstancePressure | undefined;
  return ticks.map((signals, i) => {
    state = nextInstancePressure(state, signals, 60_000 + i * 1_000, warmUp);
    return state.reported;
  });
}
const elu = (value: number): Signals => ({ elu: value });

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

  it('a 300 ms block every 10 s (6x the delay target on its tick, 3x on the next) moves nothing', () => {
    // At 0.5x capacity, ELU 0.4. The block's tick: 300 ms blocked and 700 ms at 0.4 (ELU
    // 0.58), event-loop delay p99 300 ms, the tick 300 ms late; the next tick drains the 120 ms
    // of work that waited (ELU 0.52) and its first timers are 150 ms late.
    const block = pressureOf(
      { ...calm, elu: 0.58, eventLoopDelayMs: 300, tickLatenessMs: 300 },
      DEFAULT_PRESSURE_TARGETS,
    ).bySignal;
    expect(block.eventLoopDelayMs).toBe(6);
    const drain = { elu: 0.52 / 0.75, eventLoopDelayMs: 3, tickLatenessMs: 0.6 };
    const ticks = Array.from({ length: 60 }, (_, i) =>
      i % 10 === 5 ? block : i % 10 === 6 ? drain : elu(0.4 / 0.75),
    );
    // Below the dead band's lower edge: the controller does not even hold.
    expect(Math.max(...reported(ticks))).toBeLessThan(DEFAULT_CONTROL_LAW.recoverBelow);
  });

  it('saturation is reported from its second tick on, a long delay from its third', () => {
    const settled = Array.from({ length: 8 }, () => elu(0.5));
    const saturated = reported([...settled, elu(1.3), elu(1.3), elu(1.3), elu(1.3)]).slice(8);
    expect(saturated[0]).toBeCloseTo(0.5, 2);
    expect(saturated[1]).toBeCloseTo(0.9, 2);
    expect(saturated[3]).toBeGreaterThan(1.15);
    const slow = { eventLoopDelayMs: 2 };
    const delayed = reported([...settled, slow, slow, slow, slow]).slice(8);
    // Not yet confirmed: the ELU signal is gone (0) and no delay has lasted 3 ticks.
    expect(delayed[1]).toBeLessThan(0.5);
    expect(delayed[2]).toBeGreaterThan(delayed[1]);
    expect(delayed[3]).toBeGreaterThan(1);
  });

  it('confirms nothing before a signal has lasted its ticks, and only emergencies while warming up', () => {
    const first = nextInstancePressure(undefined, elu(2.5), 1_000, warmUp);
    expect(first).toMatchObject({ confirmed: 0, reported: 0 });
    // Confirmed from the second tick of saturation; during the warm-up reported only once the
    // smoothed pressure is an emergency.
    const second = nextInstancePressure(first, elu(2.5), 2_000, warmUp);
    expect(second.confirmed).toBe(2.5);
    expect(second.smoothed).toBe(1.25);
    expect(second.reported).toBe(0);
    const third = nextInstancePressure(second, elu(2.5), 3_000, warmUp);
    expect(third.reported).toBeCloseTo(1.875, 10);
    const slow = nextInstancePressure(third, { eventLoopDelayMs: 9 }, 11_000, warmUp);
    expect(slow.reported).toBeCloseTo(0.9375, 10);
  });

  it('delay spikes of up to two ticks never raise what is reported above the calm ticks', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ base: fc.double({ min: 0, max: 0.9, noNaN: true }), spike: fc.boolean() }),
          { minLength: 2, maxLength: 100 },
        ),
        fc.double({ min: 1, max: 50, noNaN: true }),
        (ticks, height) => {
          // A spike lasts one or two ticks and is followed by at least two calm ticks.
          const signals: Signals[] = ticks.map((t) => elu(t.base));
          for (let i = 1; i + 2 < ticks.length; i += 4) {
            if (!ticks[i].spike) continue;
            signals[i] = { ...signals[i], eventLoopDelayMs: height, tickLatenessMs: height };
            if (ticks[i + 1].spike)
              signals[i + 1] = { ...signals[i + 1], eventLoopDelayMs: height };
          }
          const calmMax = Math.max(...ticks.map((t) => t.base), 0);
          return reported(signals).every((r) => r <= calmMax + 1e-9);
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
