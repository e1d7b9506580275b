import type { MemoryKeyspace } from '../memory-keyspace';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
  type MemoryAlgorithm,
} from './memory-algorithm.interface';

interface State extends CheckResult {
  index: number;
  count: number;
}
type Stored = { index: number; count: number };

/** lua/fixed-window.lua keeps the window index mod 2^23 (with the count in one integer). */
const WINDOWS = 2 ** 23;

function check(p: AlgorithmParams, ks: MemoryKeyspace): State {
  const index = Math.floor(p.now / p.windowUs);
  const stored = ks.get<Stored>(p.key);
  const count = stored && stored.index % WINDOWS === index % WINDOWS ? stored.count : 0;
  const resetUs = (index + 1) * p.windowUs - p.now;
  if (count + p.cost > p.limit) {
    return {
      index,
      count,
      resetUs,
      allowed: false,
      remaining: Math.max(0, p.limit - count),
      retryAfterUs: resetUs,
    };
  }
  return {
    index,
    count,
    resetUs,
    allowed: true,
    remaining: p.limit - count - p.cost,
    retryAfterUs: 0,
  };
}

/** Mirrors lua/fixed-window.lua. */
export const fixedWindow: MemoryAlgorithm<State> = {
  check,
  commit(p, st, ks) {
    ks.set(p.key, { index: st.index, count: st.count + p.cost }, toMs(st.resetUs));
  },
  refund(p, ks) {
    const st = check(p, ks);
    if (Math.floor(p.charged / p.windowUs) !== st.index || st.count === 0) return;
    ks.set(p.key, { index: st.index, count: Math.max(0, st.count - p.cost) }, toMs(st.resetUs));
  },
};
