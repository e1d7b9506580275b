import type { RateLimitAlgorithm } from '../../../policy/rate-limit-algorithm';
import { fixedWindow } from './fixed-window';
import { gcra } from './gcra';
import { leakyBucket } from './leaky-bucket';
import type { MemoryAlgorithm } from './memory-algorithm.interface';
import { slidingWindow } from './sliding-window';
import { slidingWindowCounter } from './sliding-window-counter';
import { tokenBucket } from './token-bucket';

export const MEMORY_ALGORITHMS: Readonly<Record<RateLimitAlgorithm, MemoryAlgorithm<any>>> = {
  'fixed-window': fixedWindow,
  'sliding-window': slidingWindow,
  'sliding-window-counter': slidingWindowCounter,
  'token-bucket': tokenBucket,
  'leaky-bucket': leakyBucket,
  gcra,
};
