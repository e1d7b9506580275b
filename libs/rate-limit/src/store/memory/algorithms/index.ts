import type { RateLimitAlgorithm } from '../../../policy/rate-limit-algorithm';
import { fixedWindow } from './fixed-window';
import { gcra } from './gcra';
import { leakyBucket } from './leaky-bucket';
import type { CheckResult, MemoryAlgorithm } from './memory-algorithm.interface';
import { slidingWindow } from './sliding-window';
import { slidingWindowCounter } from './sliding-window-counter';
import { tokenBucket } from './token-bucket';

/** Each algorithm keeps its own check state; the store passes it back to `commit` untouched. */
export const MEMORY_ALGORITHMS: Readonly<Record<RateLimitAlgorithm, MemoryAlgorithm<CheckResult>>> =
  {
    'fixed-window': fixedWindow,
    'sliding-window': slidingWindow,
    'sliding-window-counter': slidingWindowCounter,
    'token-bucket': tokenBucket,
    'leaky-bucket': leakyBucket,
    gcra,
  };
