import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { LoadSignals } from '../../adaptive/pressure';

/** The event-loop delay histogram's resolution, ms (taken off every reading, as it is noise). */
const DELAY_RESOLUTION_MS = 10;

/**
 * Node's own measures of this process over one tick (SPEC section 15): event-loop utilisation,
 * p99 event-loop delay, process CPU against the cgroup quota (when there is one), heap against
 * its limit, and how late the tick itself fired. Each `sample()` covers the time since the
 * previous one; the caller's timer passes when it meant to fire.
 */
export class LoadSampler {
  /** Intervals between firings of `timer`, ns: each is the resolution plus the loop's delay. */
  private readonly delay: RecordableHistogram = createHistogram();
  private lastFiringAt = performance.now();
  private readonly timer: NodeJS.Timeout;
  private elu = performance.eventLoopUtilization();
  private cpu = process.cpuUsage();
  private lastAt = performance.now();

  /** @param quotaCores CPUs the cgroup allows (cpu-quota.ts); undefined: CPU is no signal. */
  constructor(private readonly quotaCores: number | undefined) {
    // A timer of its own, not monitorEventLoopDelay(): that histogram's reset() also forgets
    // when it last fired, so a block that began after a tick's reset and before its next firing
    // was never recorded (seen as a flaky test; reproduced: a 200 ms block read as 10 ms).
    this.timer = setInterval(() => this.recordDelay(), DELAY_RESOLUTION_MS).unref();
  }

  private recordDelay(): void {
    const now = performance.now();
    this.delay.record(Math.max(1, Math.round((now - this.lastFiringAt) * 1e6)));
    this.lastFiringAt = now;
  }

  /** Signals since the last sample; `dueAt` is when this tick was meant to fire (performance.now). */
  sample(dueAt: number): LoadSignals {
    const now = performance.now();
    const elu = performance.eventLoopUtilization(this.elu);
    this.elu = performance.eventLoopUtilization();
    const cpu = process.cpuUsage(this.cpu);
    this.cpu = process.cpuUsage();
    const elapsedMs = Math.max(1, now - this.lastAt);
    this.lastAt = now;
    // An empty histogram (no timer fired: the loop was blocked the whole tick) reads as 0:
    // the tick's lateness then says what the histogram could not.
    const p99Ms = this.delay.count > 0 ? this.delay.percentile(99) / 1e6 : 0;
    this.delay.reset();
    const heap = getHeapStatistics();
    return {
      elu: elu.utilization,
      eventLoopDelayMs: Math.max(0, p99Ms - DELAY_RESOLUTION_MS),
      cpu:
        this.quotaCores === undefined
          ? undefined
          : (cpu.user + cpu.system) / 1_000 / (elapsedMs * this.quotaCores),
      heap: heap.used_heap_size / heap.heap_size_limit,
      tickLatenessMs: Math.max(0, now - dueAt),
    };
  }

  /** Delays the histogram has recorded since the last sample (each of its timer's firings). */
  get delaysRecorded(): number {
    return this.delay.count;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
