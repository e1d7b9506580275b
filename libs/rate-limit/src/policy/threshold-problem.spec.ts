import { MAX_SLIDING_WINDOW_LIMIT } from './policy-limits';
import { RATE_LIMIT_ALGORITHMS } from './rate-limit-algorithm';
import { thresholdProblem } from './threshold-problem';

describe('thresholdProblem', () => {
  it('lets the sliding-window log go up to 10,000', () => {
    expect(thresholdProblem({ algo: 'sliding-window', limit: MAX_SLIDING_WINDOW_LIMIT })).toBe(
      undefined,
    );
  });

  it('explains a larger sliding-window limit and points to sliding-window-counter', () => {
    expect(thresholdProblem({ algo: 'sliding-window', limit: 10_001 })).toBe(
      "limit must be at most 10000 with algo 'sliding-window', which keeps one entry per " +
        "request in the window (got 10001); use 'sliding-window-counter' for larger limits",
    );
  });

  it.each(RATE_LIMIT_ALGORITHMS.filter((algo) => algo !== 'sliding-window'))(
    'has nothing against %s with a limit of 1,000,000,000',
    (algo) => {
      expect(thresholdProblem({ algo, limit: 1_000_000_000 })).toBeUndefined();
    },
  );
});
