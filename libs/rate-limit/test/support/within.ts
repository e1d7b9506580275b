import { meterStalls } from './stall-meter';

/**
 * Polls `condition` every 5 ms until it holds; resolves with how long that took, rejects after
 * `deadlineMs`. For state that changes with no event to await (another instance's cache).
 *
 * The deadline is on what the product waited, as every wall-time bound of the suite: the time
 * the host kept this process from running is taken off (stall-meter.ts). And before giving up,
 * the loop gets one more I/O turn: after a stall the poll timer fires before the socket is read,
 * so a reply that had arrived in time would otherwise be seen too late.
 */
export async function within(
  deadlineMs: number,
  condition: () => boolean | Promise<boolean>,
): Promise<number> {
  const meter = meterStalls();
  const started = performance.now();
  const waited = () => performance.now() - started - meter.stalled();
  try {
    while (!(await condition())) {
      if (waited() > deadlineMs) {
        await new Promise((resolve) => setImmediate(resolve));
        if (await condition()) break;
        throw new Error(`condition not met within ${deadlineMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return performance.now() - started;
  } finally {
    meter.stop();
  }
}
