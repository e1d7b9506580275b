/**
 * One instance's load as one number: each of Node's signals divided by its target, so 1.0 is
 * "at target", and the instance's pressure is the highest of them (the resource that runs out
 * first decides). Host load is never a signal: on a shared host it is someone else's.
 */

/** What an instance measured over one controller tick. */
export interface LoadSignals {
  /** Event-loop utilisation, 0-1. */
  elu: number;
  /** p99 of event-loop delay over the tick, ms (the sampler's resolution already taken off). */
  eventLoopDelayMs: number;
  /** Process CPU against the cgroup's quota, 0-1 (and more when throttled); absent without one. */
  cpu?: number;
  /** Heap used against the heap's limit, 0-1. */
  heap: number;
  /** How late the controller's own tick fired, ms: a loop too busy to sample says so this way. */
  tickLatenessMs: number;
}

export type SignalName = keyof LoadSignals;

/** What each signal is normalised by. */
export type PressureTargets = Record<SignalName, number>;

export const DEFAULT_PRESSURE_TARGETS: Readonly<PressureTargets> = Object.freeze({
  elu: 0.75,
  eventLoopDelayMs: 50,
  cpu: 0.8,
  heap: 0.85,
  tickLatenessMs: 250,
});

export interface Pressure {
  /** The highest normalised signal. */
  value: number;
  /** Which signal that was (for the audit: "elu 0.91 on 3/4 instances"). */
  dominant: SignalName;
  /** Every signal measured, normalised. */
  bySignal: Partial<Record<SignalName, number>>;
}

const SIGNALS: readonly SignalName[] = ['elu', 'eventLoopDelayMs', 'cpu', 'heap', 'tickLatenessMs'];

export function pressureOf(signals: LoadSignals, targets: PressureTargets): Pressure {
  const bySignal: Partial<Record<SignalName, number>> = {};
  let value = 0;
  let dominant: SignalName = 'elu';
  for (const name of SIGNALS) {
    const measured = signals[name];
    if (measured === undefined || !Number.isFinite(measured)) continue;
    const normalised = Math.max(0, measured) / targets[name];
    bySignal[name] = normalised;
    if (normalised > value) {
      value = normalised;
      dominant = name;
    }
  }
  return { value, dominant, bySignal };
}

/** Weight of the newest tick in the smoothed pressure. */
export const PRESSURE_SMOOTHING = 0.5;

/** An instance's pressure from tick to tick. */
export interface InstancePressure {
  /** This tick's pressure as measured. */
  raw: number;
  /** Smoothed over ticks, spikes of one tick left out. */
  smoothed: number;
  /** What it reports in its heartbeat (0 while warming up, unless an emergency). */
  reported: number;
}

/**
 * The next tick's pressure of one instance. A tick counts with at most the pressure of the tick
 * before it: a single spike (a 300 ms GC pause or a synchronous block, which reads as 6x the
 * delay target over its tick) moves nothing unless the next tick is loaded too, while a real
 * overload shows on every tick and is followed one tick later. That is then smoothed (half the
 * newest tick). During its first `warmUpMs` (JIT compilation, caches filling) an instance
 * reports only an emergency.
 */
export function nextInstancePressure(
  previous: InstancePressure | undefined,
  raw: number,
  uptimeMs: number,
  warmUp: { warmUpMs: number; emergencyAt: number },
): InstancePressure {
  const confirmed = previous === undefined ? raw : Math.min(raw, previous.raw);
  const smoothed =
    previous === undefined
      ? confirmed
      : PRESSURE_SMOOTHING * confirmed + (1 - PRESSURE_SMOOTHING) * previous.smoothed;
  const reported = uptimeMs < warmUp.warmUpMs && smoothed < warmUp.emergencyAt ? 0 : smoothed;
  return { raw, smoothed, reported };
}
