/**
 * How long this process was kept from running while a wall-time bound was measured.
 *
 * A timer ticks every TICK_MS and adds up how late each tick fired. While the product waits (for
 * a reply, a timer, a message) the event loop is free and the ticks come on time, so a wait is
 * never taken off; when the host does not schedule the process (3 Jest workers on 2 cores, a
 * parallel build) or the process itself computes, the ticks come late by that much. A bound that
 * is the product's promise ("answers without waiting for the command timeout", "applied on the
 * other instance within 100 ms") is then checked on `elapsed - stalled`: what the product waited,
 * which a busy host cannot inflate. What it does not see: a product that blocks the loop for
 * the whole bound (that is CPU, which the callgrind budgets check).
 */
const TICK_MS = 2;
/**
 * Node's timers fire on whole milliseconds, so an idle loop runs a tick up to 1 ms late: only
 * lateness beyond that is a stall (an idle host then counts none; a stall counts 1 ms short).
 */
const TIMER_GRANULARITY_MS = 1;
/** How much of the gap between two ticks the loop was stalled. */
export const lateness = (gapMs: number): number =>
  Math.max(0, gapMs - TICK_MS - TIMER_GRANULARITY_MS);

export interface StallMeter {
  /** Milliseconds the loop ran late since the meter started, so far (it keeps running). */
  stalled(): number;
  /** Milliseconds the loop ran late since the meter started (stops the meter). */
  stop(): number;
}

export function meterStalls(): StallMeter {
  let stalledMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    stalledMs += lateness(now - last);
    last = now;
  }, TICK_MS);
  // The lateness of the tick that has not fired yet counts too.
  const stalled = () => stalledMs + lateness(performance.now() - last);
  return {
    stalled,
    stop() {
      clearInterval(timer);
      stalledMs = stalled();
      last = performance.now();
      return stalledMs;
    },
  };
}

/** Runs `work` and returns its wall time and the part of it the process could not run. */
export async function timeWithStalls<T>(
  work: () => Promise<T>,
): Promise<{ value: T; ms: number; stalledMs: number; waitedMs: number }> {
  const meter = meterStalls();
  const started = performance.now();
  let value: T;
  try {
    value = await work();
  } catch (error) {
    meter.stop();
    throw error;
  }
  const stalledMs = meter.stop();
  const ms = performance.now() - started;
  return { value, ms, stalledMs, waitedMs: ms - stalledMs };
}
