import type { LoadSignals } from '../../adaptive/pressure';

/**
 * The local ticks' signals gathered for one heartbeat: utilisation, CPU and heap as their mean,
 * delays as their worst (a second with one long delay had that delay).
 */
export class SignalWindow {
  private samples: LoadSignals[] = [];

  add(signals: LoadSignals): void {
    this.samples.push(signals);
  }

  /** The window's signals, and a fresh window. */
  take(): LoadSignals {
    const samples = this.samples;
    this.samples = [];
    const mean = (pick: (s: LoadSignals) => number | undefined) => {
      const values = samples.map(pick).filter((v): v is number => v !== undefined);
      return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
    };
    const worst = (pick: (s: LoadSignals) => number) => Math.max(0, ...samples.map(pick));
    return {
      elu: mean((s) => s.elu) ?? 0,
      eventLoopDelayMs: worst((s) => s.eventLoopDelayMs),
      cpu: mean((s) => s.cpu),
      heap: mean((s) => s.heap) ?? 0,
      tickLatenessMs: worst((s) => s.tickLatenessMs),
    };
  }
}
