import type { MemoryKeyspace } from '../memory-keyspace';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
  type MemoryAlgorithm,
} from './memory-algorithm.interface';

interface State extends CheckResult {
  newTat: number;
}

function tatNow(p: AlgorithmParams, ks: MemoryKeyspace): number {
  const stored = ks.get<number>(p.key);
  return stored !== undefined && stored > p.now ? stored : p.now;
}

/** Mirrors lua/gcra.lua. */
export const gcra: MemoryAlgorithm<State> = {
  check(p, ks) {
    const interval = p.windowUs / p.limit;
    const tat = tatNow(p, ks);
    const newTat = tat + p.cost * interval;
    const allowAt = newTat - p.burst * interval;
    if (p.now < allowAt) {
      return {
        newTat,
        allowed: false,
        remaining: Math.max(0, Math.floor(p.burst - (tat - p.now) / interval)),
        retryAfterUs: allowAt - p.now,
        resetUs: tat - p.now,
      };
    }
    return {
      newTat,
      allowed: true,
      remaining: Math.max(0, Math.floor(p.burst - (newTat - p.now) / interval)),
      retryAfterUs: 0,
      resetUs: newTat - p.now,
    };
  },
  commit(p, st, ks) {
    ks.set(p.key, st.newTat, toMs(st.newTat - p.now));
  },
  refund(p, ks) {
    const tat = Math.max(p.now, tatNow(p, ks) - (p.cost * p.windowUs) / p.limit);
    if (tat <= p.now) return ks.del(p.key);
    ks.set(p.key, tat, toMs(tat - p.now));
  },
};
