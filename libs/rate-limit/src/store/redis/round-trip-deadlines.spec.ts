import { RateLimitStoreError } from '../../errors/rate-limit-store.error';
import { RoundTripDeadlines } from './round-trip-deadlines';

/** A reply the test answers (or never answers) itself. */
function pending<T>(): { promise: Promise<T>; resolve(value: T): void; reject(e: Error): void } {
  let resolve!: (value: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('RoundTripDeadlines (the request path round trips, on one timer)', () => {
  let deadlines: RoundTripDeadlines;
  afterEach(() => deadlines.dispose());

  it('answers a reply that comes in time, and the error of one that fails', async () => {
    deadlines = new RoundTripDeadlines(1_000);
    await expect(deadlines.bound(Promise.resolve(7))).resolves.toBe(7);
    await expect(deadlines.bound(Promise.reject(new Error('WRONGTYPE')))).rejects.toThrow(
      'WRONGTYPE',
    );
  });

  it('recovering: an error replied in time goes to recover, a timeout never', async () => {
    deadlines = new RoundTripDeadlines(20);
    const recovering = deadlines.bound.recovering!;
    const recover = (error: unknown) => {
      if ((error as Error).message !== 'NOSCRIPT') throw error;
      return 'loaded and run';
    };
    await expect(recovering(Promise.reject(new Error('NOSCRIPT')), recover)).resolves.toBe(
      'loaded and run',
    );
    await expect(recovering(Promise.reject(new Error('WRONGTYPE')), recover)).rejects.toThrow(
      'WRONGTYPE',
    );
    const seen: unknown[] = [];
    const late = pending<string>();
    const recoverLate = (e: unknown): string => {
      seen.push(e);
      return 'recovered too late';
    };
    const error = await recovering(late.promise, recoverLate).catch((e: unknown) => e);
    expect((error as RateLimitStoreError).failure).toBe('timeout');
    late.reject(new Error('NOSCRIPT'));
    await late.promise.catch(() => undefined);
    expect(seen).toEqual([]);
  });

  it('declares a timeout whose late reply is still readable, and never one in time', async () => {
    deadlines = new RoundTripDeadlines(20);
    const slow = pending<string>();
    const quick = pending<string>();
    const slowBound = deadlines.bound(slow.promise);
    const quickBound = deadlines.bound(quick.promise);
    quick.resolve('in time');
    await expect(quickBound).resolves.toBe('in time');
    const error = await slowBound.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitStoreError);
    expect((error as RateLimitStoreError).failure).toBe('timeout');
    slow.resolve('late');
    await expect((error as RateLimitStoreError).late).resolves.toBe('late');
  });

  it('times out calls in the order they were sent, each after its own timeout', async () => {
    deadlines = new RoundTripDeadlines(30);
    const settledAt: number[] = [];
    const started = performance.now();
    const first = deadlines.bound(pending().promise).catch(() => settledAt.push(performance.now()));
    await new Promise((resolve) => setTimeout(resolve, 15));
    const second = deadlines
      .bound(pending().promise)
      .catch(() => settledAt.push(performance.now()));
    await Promise.all([first, second]);
    // Each no sooner than its timeout after it was sent (a late host only delays them).
    expect(settledAt[0] - started).toBeGreaterThanOrEqual(29);
    expect(settledAt[1] - started).toBeGreaterThanOrEqual(15 + 29);
  });

  it('arms one timer for any number of calls in flight, not one per call', async () => {
    deadlines = new RoundTripDeadlines(1_000);
    const spy = jest.spyOn(global, 'setTimeout');
    try {
      const replies = Array.from({ length: 100 }, () => pending<number>());
      const bound = replies.map((r) => deadlines.bound(r.promise));
      replies.forEach((r, i) => r.resolve(i));
      await expect(Promise.all(bound)).resolves.toHaveLength(100);
      for (let i = 0; i < 100; i++) await deadlines.bound(Promise.resolve(i));
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
