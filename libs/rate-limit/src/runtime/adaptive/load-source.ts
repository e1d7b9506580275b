import type { LoadSignals } from '../../adaptive/pressure';

/** Where adaptive protection reads this process's load each tick (LoadSampler in production). */
export interface LoadSource {
  /** Signals since the last call; `dueAt` is when the tick was meant to fire (performance.now). */
  sample(dueAt: number): LoadSignals;
  stop(): void;
  /**
   * How long the process has run, for the warm-up (only an emergency counts before 10 s);
   * absent: since adaptive protection started. A scripted source may say "warm" at once.
   */
  uptimeMs?(): number;
}

/**
 * The module provides null here, and AdaptiveLimits then samples Node itself. Tests override it
 * with scripted signals: an overload on demand, without burning the CPU the test runs on.
 */
export const ADAPTIVE_LOAD_SOURCE = Symbol('ADAPTIVE_LOAD_SOURCE');
