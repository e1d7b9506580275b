import type { SignalName } from './pressure';

/** What one instance's heartbeat says about its load. */
export interface InstanceLoad {
  id: string;
  /** Its reported (smoothed) pressure. */
  pressure: number;
  dominant: SignalName;
  /** Requests it decided per second over its last tick: the weight of its pressure. */
  rps: number;
  /** When it reported, ms (Redis time as the heartbeat stored it). */
  reportedAt: number;
}

export interface FleetPressure {
  /** RPS-weighted mean pressure of the instances that reported recently. */
  value: number;
  /** Share of the fleet's RPS served by instances above target (pressure > 1). */
  overloadedShare: number;
  /** Instances counted, and how many of them were above target. */
  instances: number;
  overloaded: number;
  /** The signal that dominates on most overloaded instances (or on most, when none is). */
  dominant: SignalName | undefined;
}

/** A heartbeat older than this no longer counts. */
export const FRESH_LOAD_MS = 3_000;

/**
 * The fleet's pressure from its instances' heartbeats. Weighted by requests, so an idle
 * instance's calm does not hide the busy ones; an instance with no traffic weighs as one that
 * served one request per second (its pressure is still a fact about the fleet).
 */
export function fleetPressureOf(loads: readonly InstanceLoad[], now: number): FleetPressure {
  const fresh = loads.filter(
    (l) => now - l.reportedAt <= FRESH_LOAD_MS && Number.isFinite(l.pressure),
  );
  let weight = 0;
  let weighted = 0;
  let overloadedWeight = 0;
  const dominants = new Map<SignalName, number>();
  const overloaded = fresh.filter((l) => l.pressure > 1);
  for (const load of fresh) {
    const w = Math.max(1, load.rps);
    weight += w;
    weighted += w * load.pressure;
    if (load.pressure > 1) overloadedWeight += w;
  }
  for (const load of overloaded.length > 0 ? overloaded : fresh)
    dominants.set(load.dominant, (dominants.get(load.dominant) ?? 0) + 1);
  const dominant = [...dominants.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return {
    value: weight === 0 ? 0 : weighted / weight,
    overloadedShare: weight === 0 ? 0 : overloadedWeight / weight,
    instances: fresh.length,
    overloaded: overloaded.length,
    dominant,
  };
}
