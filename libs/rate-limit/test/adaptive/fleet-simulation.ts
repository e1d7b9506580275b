/**
 * The fleet model (fleet-model.ts) run under the real loops: every instance samples its signals
 * and runs its local loop every 250 ms and beats every second; one leader runs the fleet loop on
 * the heartbeats every second and its multipliers apply from the next step. Returns what
 * happened second by second.
 */
import {
  DEFAULT_CONTROL_LAW,
  DEFAULT_LOCAL_LAW,
  type ControlLaw,
} from '../../src/adaptive/control-law';
import {
  initialControllerState,
  stepController,
  type ControllerState,
  type Movement,
} from '../../src/adaptive/fleet-controller';
import { fleetPressureOf, type InstanceLoad } from '../../src/adaptive/fleet-pressure';
import {
  LOCAL_PRESSURE_FILTER,
  LOCAL_TICK_MS,
  localDropShares,
} from '../../src/adaptive/local-shedding';
import {
  DEFAULT_PRESSURE_FILTER,
  DEFAULT_PRESSURE_TARGETS,
  nextInstancePressure,
  pressureOf,
  type InstancePressure,
} from '../../src/adaptive/pressure';
import { maxLevel, tierMultipliers } from '../../src/adaptive/tier-multipliers';
import { seededRandom } from '../support/seeded-random';
import {
  newInstance,
  readSignals,
  STEP_S,
  percentile,
  stepFleet,
  type FleetModelOptions,
  type InstanceModel,
} from './fleet-model';

export interface SimulatedSecond {
  t: number;
  offered: number;
  /** Admitted and answered within 500 ms, per second. */
  goodput: number;
  /** Per tier, per second. */
  offeredByTier: Record<string, number>;
  admittedByTier: Record<string, number>;
  adaptiveByTier: Record<string, number>;
  /** p99 latency of what was admitted in this second, ms. */
  p99Ms: number;
  level: number;
  boost: number;
  multipliers: Record<string, number>;
  movement: Movement;
  localLevels: number[];
}

const LOCAL_TICKS_PER_SECOND = 1_000 / LOCAL_TICK_MS;

export function simulateFleet(
  options: FleetModelOptions,
  seconds: number,
  law: ControlLaw = DEFAULT_CONTROL_LAW,
): SimulatedSecond[] {
  const random = seededRandom(options.seed);
  const tiers = options.tiers;
  const settings = { law, maxLevel: maxLevel(tiers), boostCeiling: law.boostCeiling };
  const localSettings = { law: DEFAULT_LOCAL_LAW, maxLevel: maxLevel(tiers), boostCeiling: 1 };
  const instances: InstanceModel[] = Array.from({ length: options.instances }, newInstance);
  const heartbeat: (InstancePressure | undefined)[] = instances.map(() => undefined);
  const local: (InstancePressure | undefined)[] = instances.map(() => undefined);
  const localState: ControllerState[] = instances.map(() =>
    initialControllerState(DEFAULT_LOCAL_LAW),
  );
  const beatSignals = instances.map(() => ({ busy: 0, maxDelayMs: 0, admitted: 0 }));
  let fleet = initialControllerState(law);
  let movement: Movement;
  let multipliers = tierMultipliers(tiers, 0, 0);
  const localDrops = instances.map(() => ({}) as Record<string, number>);
  const out: SimulatedSecond[] = [];
  const uptimeMs = (t: number) => 60_000 + t * 1_000;
  const stepsPerSecond = Math.round(1 / STEP_S);

  for (let s = 0; s < seconds; s++) {
    const second = emptySecond(
      s,
      tiers.map((tier) => tier.name),
    );
    const latencies: [number, number][] = [];
    let limitedShare = 0;
    for (let k = 0; k < stepsPerSecond; k++) {
      const t = s + k * STEP_S;
      const traffic = stepFleet(options, instances, t, multipliers, localDrops, random);
      second.goodput += traffic.good;
      traffic.byInstance.forEach((admitted, i) => (beatSignals[i].admitted += admitted));
      latencies.push(...traffic.latencies);
      for (const tier of tiers) {
        second.offeredByTier[tier.name] += traffic.offered[tier.name];
        second.admittedByTier[tier.name] += traffic.admitted[tier.name];
        second.adaptiveByTier[tier.name] += traffic.rejectedAdaptive[tier.name];
        const offered = traffic.offered[tier.name];
        if (offered > 0)
          limitedShare = Math.max(limitedShare, traffic.rejectedByLimit[tier.name] / offered);
      }
      if ((k + 1) % (stepsPerSecond / LOCAL_TICKS_PER_SECOND) !== 0) continue;
      // Every 250 ms: each instance samples, runs its local loop, and keeps the figures for
      // its heartbeat.
      instances.forEach((instance, i) => {
        const { elu, delayMs } = readSignals(instance);
        beatSignals[i].busy += elu / LOCAL_TICKS_PER_SECOND;
        beatSignals[i].maxDelayMs = Math.max(beatSignals[i].maxDelayMs, delayMs);
        const raw = signalsPressure(elu, delayMs);
        local[i] = nextInstancePressure(local[i], raw, uptimeMs(t), LOCAL_PRESSURE_FILTER);
        const step = stepController(
          localState[i],
          { now: t * 1_000, fleet: alone(local[i]!.reported), demandLimited: false },
          localSettings,
        );
        localState[i] = step.state;
        localDrops[i] = localDropShares(tiers, step.state.level);
      });
    }
    // Every second: heartbeats, then the leader's fleet loop.
    const now = (s + 1) * 1_000;
    const loads: InstanceLoad[] = instances.map((_, i) => {
      const rps = beatSignals[i].admitted;
      const raw = signalsPressure(beatSignals[i].busy, beatSignals[i].maxDelayMs);
      heartbeat[i] = nextInstancePressure(
        heartbeat[i],
        raw,
        uptimeMs(s + 1),
        DEFAULT_PRESSURE_FILTER,
      );
      beatSignals[i] = { busy: 0, maxDelayMs: 0, admitted: 0 };
      return {
        id: `i${i}`,
        pressure: heartbeat[i]!.reported,
        dominant: 'elu',
        rps,
        reportedAt: now,
      };
    });
    const step = stepController(
      fleet,
      { now, fleet: fleetPressureOf(loads, now), demandLimited: limitedShare >= 0.01 },
      settings,
    );
    fleet = step.state;
    movement = step.movement;
    multipliers = tierMultipliers(tiers, fleet.level, fleet.boost);
    second.offered = Object.values(second.offeredByTier).reduce((a, b) => a + b, 0);
    second.p99Ms = percentile(latencies, 0.99) * 1_000;
    Object.assign(second, {
      level: fleet.level,
      boost: fleet.boost,
      multipliers,
      movement,
      localLevels: localState.map((l) => l.level),
    });
    out.push(second);
  }
  return out;
}

/** An instance's normalised signals from its ELU and its largest event-loop delay. */
function signalsPressure(elu: number, delayMs: number) {
  return pressureOf(
    { elu, eventLoopDelayMs: delayMs, heap: 0.3, tickLatenessMs: delayMs },
    DEFAULT_PRESSURE_TARGETS,
  ).bySignal;
}

const alone = (value: number) => ({
  value,
  overloadedShare: 1,
  instances: 1,
  overloaded: value > 1 ? 1 : 0,
  dominant: 'elu' as const,
});

function emptySecond(t: number, names: string[]): SimulatedSecond {
  const zero = () => Object.fromEntries(names.map((n) => [n, 0]));
  return {
    t,
    offered: 0,
    goodput: 0,
    offeredByTier: zero(),
    admittedByTier: zero(),
    adaptiveByTier: zero(),
    p99Ms: 0,
    level: 0,
    boost: 0,
    multipliers: {},
    movement: 'hold',
    localLevels: [],
  };
}
