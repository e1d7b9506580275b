import { lateness, timeWithStalls } from './support/stall-meter';

/**
 * The stall meter takes off a wall-time bound only what kept this process from running, never
 * what the measured code waited for: otherwise the bounds checked with it would prove nothing.
 */
describe('support/stall-meter', () => {
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };

  it('counts a loop blocked for 60 ms as stalled', async () => {
    const timed = await timeWithStalls(async () => {
      await new Promise((r) => setImmediate(r));
      busy(60);
    });
    expect(timed.stalledMs).toBeGreaterThanOrEqual(60 - 3);
    expect(timed.waitedMs).toBeLessThanOrEqual(timed.ms - 57);
  });

  it('does not take off a wait: ticks that come on time (an idle loop) count nothing', () => {
    // While the measured code waits, the loop is free and the 2 ms ticks come every 2-3 ms
    // (timers fire on whole milliseconds); only what is later than that is a stall.
    expect([2, 2.4, 3, 2.9, 2].map(lateness)).toEqual([0, 0, 0, 0, 0]);
    expect(lateness(60)).toBe(57);
  });

  it('stops its timer even when the measured work fails', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await expect(
      timeWithStalls(async () => {
        throw new Error('failed work');
      }),
    ).rejects.toThrow('failed work');
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before);
  });
});
