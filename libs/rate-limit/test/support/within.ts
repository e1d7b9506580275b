/**
 * Polls `condition` every 5 ms until it holds; resolves with how long that took, rejects after
 * `deadlineMs`. For state that changes with no event to await (another instance's cache).
 */
export async function within(
  deadlineMs: number,
  condition: () => boolean | Promise<boolean>,
): Promise<number> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > deadlineMs)
      throw new Error(`condition not met within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}
