import type { MemoryKeyspace } from '../memory-keyspace';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
  type MemoryAlgorithm,
} from './memory-algorithm.interface';

interface State extends CheckResult {
  level: number;
}
type Stored = { level: number; last: number };

function levelNow(p: AlgorithmParams, ks: MemoryKeyspace): number {
  const stored = ks.get<Stored>(p.key);
  if (!stored) return 0;
  return Math.max(0, stored.level - (Math.max(0, p.now - stored.last) * p.limit) / p.windowUs);
}

function store(p: AlgorithmParams, ks: MemoryKeyspace, level: number): void {
  if (level <= 0) return ks.del(p.key);
  ks.set(p.key, { level, last: p.now }, toMs((level * p.windowUs) / p.limit));
}

/** Mirrors lua/leaky-bucket.lua. */
export const leakyBucket: MemoryAlgorithm<State> = {
  check(p, ks) {
    const level = levelNow(p, ks);
    if (level + p.cost > p.burst) {
      return {
        level,
        allowed: false,
        remaining: Math.max(0, Math.floor(p.burst - level)),
        retryAfterUs: ((level + p.cost - p.burst) * p.windowUs) / p.limit,
        resetUs: (level * p.windowUs) / p.limit,
      };
    }
    return {
      level,
      allowed: true,
      remaining: Math.max(0, Math.floor(p.burst - level - p.cost)),
      retryAfterUs: 0,
      resetUs: ((level + p.cost) * p.windowUs) / p.limit,
    };
  },
  commit: (p, st, ks) => store(p, ks, st.level + p.cost),
  refund: (p, ks) => store(p, ks, levelNow(p, ks) - p.cost),
};
