/**
 * Fixed windows (and the sliding-window-counter's windows) are aligned to multiples of the
 * window length since the Unix epoch, on Redis server time. A burst that straddles a boundary is
 * legitimately split across two windows, so tests that need "exactly N, then 429" choose a
 * window whose boundary is far away instead of waiting for the clock.
 */
const DAY_MS = 86_400_000;

/**
 * A window so long that nothing refills during a test (buckets and GCRA admit exactly their
 * capacity) and whose epoch-aligned boundary is not within the next hour (a burst split by a
 * boundary is two windows' worth, as it should be): 366 days, or 365 or 364 near a boundary.
 */
export function windowWithoutBoundary(): number {
  for (const days of [366, 365, 364]) {
    const windowMs = days * DAY_MS;
    if (windowMs - (Date.now() % windowMs) > 3_600_000) return windowMs;
  }
  throw new Error('unreachable: the three windows cannot all end within the hour');
}

/**
 * A fixed window and its double for a count that must outlive a longer window: a key counted
 * now in the first still runs when moved to the second (the first's boundary is not within the
 * hour), and the second's current window ends a whole first window after the first's (now is
 * in the first half of the double window, so the move adds `windowMs`). Whole days, at most
 * 183: the double is at most 366, the longest window.
 */
export function windowAndItsDouble(): { windowMs: number; doubleMs: number } {
  const now = Date.now();
  for (let days = 183; days > 0; days--) {
    const windowMs = days * DAY_MS;
    const index = Math.floor(now / windowMs);
    if (index % 2 === 0 && (index + 1) * windowMs - now > 3_600_000) {
      return { windowMs, doubleMs: 2 * windowMs };
    }
  }
  throw new Error('no window of 1 to 183 days starts a double window with an hour left');
}
