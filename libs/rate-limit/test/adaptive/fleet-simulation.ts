/**
 * The fleet model (fleet-model.ts) run under the real loops: every instance samples its signals
 * and runs its local loop (LocalProtection) every 250 ms and beats every second with what its
 * SignalWindow gathered, as AdaptiveProtection does; one leader runs the fleet loop on
 * the heartbeats every second and its multipliers apply from the next step. Returns what
 * happened second by second.
 */
import { DEFAULT_CONTROL_LAW, type ControlLaw } from '../../src/adaptive/control-law';
import {
  initialControllerState,
  stepController,
  type Movement,
} from '../../src/adaptive/fleet-controller';
import { fleetPressureOf, type InstanceLoad } from '../../src/adaptive/fleet-pressure';
import { LOCAL_TICK_MS } from '../../src/adaptive/local-shedding';
import {
  DEFAULT_PRESSURE_FILTER,
  DEFAULT_PRESSURE_TARGETS,
  nextInstancePressure,
  pressureOf,
  type InstancePressure,
  type LoadSignals,
} from '../../src/adaptive/pressure';
import { maxLevel, tierMultipliers } from '../../src/adaptive/tier-multipliers';
import { LocalProtection } from '../../src/runtime/adaptive/local-protection';
import { SignalWindow } from '../../src/runtime/adaptive/signal-window';
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
  const adaptive = {
    mode: 'enforce' as const,
    policies: 'all' as const,
    tiers,
    boostCeiling: law.boostCeiling,
    targets: DEFAULT_PRESSURE_TARGETS,
  };
  const instances: InstanceModel[] = Array.from({ length: options.instances }, newInstance);
  const heartbeat: (InstancePressure | undefined)[] = instances.map(() => undefined);
  const local = instances.map(() => new LocalProtection(adaptive));
  const windows = instances.map(() => new SignalWindow());
  const admitted = instances.map(() => 0);
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
      traffic.byInstance.forEach((n, i) => (admitted[i] += n));
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
      // Every 250 ms: each instance samples and runs its local loop.
      instances.forEach((instance, i) => {
        const signals = modelSignals(readSignals(instance));
        windows[i].add(signals);
        localDrops[i] = local[i].tick(signals, t * 1_000, uptimeMs(t)).shares;
      });
    }
    // Every second: heartbeats, then the leader's fleet loop.
    const now = (s + 1) * 1_000;
    const loads: InstanceLoad[] = instances.map((_, i) => {
      const measured = pressureOf(windows[i].take(), DEFAULT_PRESSURE_TARGETS);
      heartbeat[i] = nextInstancePressure(
        heartbeat[i],
        measured.bySignal,
        uptimeMs(s + 1),
        DEFAULT_PRESSURE_FILTER,
      );
      const rps = admitted[i];
      admitted[i] = 0;
      return {
        id: `i${i}`,
        pressure: heartbeat[i]!.reported,
        dominant: measured.dominant,
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
      localLevels: local.map((l) => l.level),
    });
    out.push(second);
  }
  return out;
}

/** What an instance's sampler reads in the model: its ELU, and its largest delay as both delays. */
function modelSignals({ elu, delayMs }: { elu: number; delayMs: number }): LoadSignals {
  return { elu, eventLoopDelayMs: delayMs, heap: 0.3, tickLatenessMs: delayMs };
}

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
