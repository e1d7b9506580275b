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

export const SIGNAL_NAMES: readonly SignalName[] = [
  'elu',
  'eventLoopDelayMs',
  'cpu',
  'heap',
  'tickLatenessMs',
];

export function pressureOf(signals: LoadSignals, targets: PressureTargets): Pressure {
  const bySignal: Partial<Record<SignalName, number>> = {};
  let value = 0;
  let dominant: SignalName = 'elu';
  for (const name of SIGNAL_NAMES) {
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
  /** The last ticks' normalised signals as measured, newest last. */
  recent: Partial<Record<SignalName, number>>[];
  /** The highest signal confirmed over its ticks (see PressureFilter). */
  confirmed: number;
  /** Smoothed over ticks. */
  smoothed: number;
  /** What it reports in its heartbeat (0 while warming up, unless an emergency). */
  reported: number;
}

/**
 * Ticks a signal must last to count: a signal counts with its lowest value over its last ticks.
 * Delay signals over 3 one-second ticks: a 300 ms pause reads as 6x the delay target on its
 * tick and the backlog it leaves as more on the next, and moves nothing. Utilisation (ELU, CPU,
 * heap) over 2: a pause raises one tick's ELU, while saturation, the first sign of a real
 * overload, shows on every tick and is followed from the second.
 */
export interface PressureFilter {
  delayConfirmTicks: number;
  loadConfirmTicks: number;
  /** During this long after start (JIT compilation, caches filling) only an emergency counts. */
  warmUpMs: number;
  emergencyAt: number;
}

export const DEFAULT_PRESSURE_FILTER: Readonly<PressureFilter> = Object.freeze({
  delayConfirmTicks: 3,
  loadConfirmTicks: 2,
  warmUpMs: 10_000,
  emergencyAt: 1.5,
});

const DELAY_SIGNALS = new Set<SignalName>(['eventLoopDelayMs', 'tickLatenessMs']);

/** The next tick's pressure of one instance: each signal confirmed, the highest smoothed. */
export function nextInstancePressure(
  previous: InstancePressure | undefined,
  bySignal: Partial<Record<SignalName, number>>,
  uptimeMs: number,
  filter: PressureFilter,
): InstancePressure {
  const keep = Math.max(filter.delayConfirmTicks, filter.loadConfirmTicks);
  const recent = [...(previous?.recent ?? []), bySignal].slice(-keep);
  let confirmed = 0;
  for (const name of SIGNAL_NAMES) {
    const ticks = DELAY_SIGNALS.has(name) ? filter.delayConfirmTicks : filter.loadConfirmTicks;
    // A signal counts once it has lasted its ticks: the first ticks after start confirm nothing.
    if (recent.length < ticks) continue;
    const values = recent.slice(-ticks).map((tick) => tick[name] ?? 0);
    confirmed = Math.max(confirmed, Math.min(...values));
  }
  const smoothed =
    previous === undefined
      ? confirmed
      : PRESSURE_SMOOTHING * confirmed + (1 - PRESSURE_SMOOTHING) * previous.smoothed;
  const reported = uptimeMs < filter.warmUpMs && smoothed < filter.emergencyAt ? 0 : smoothed;
  return { recent, confirmed, smoothed, reported };
}
