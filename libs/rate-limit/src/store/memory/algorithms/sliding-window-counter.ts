import type { MemoryKeyspace } from '../memory-keyspace';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
  type MemoryAlgorithm,
} from './memory-algorithm.interface';

interface State extends CheckResult {
  index: number;
  current: number;
  previous: number;
  elapsed: number;
}
type Stored = { index: number; current: number; previous: number };

function read(p: AlgorithmParams, ks: MemoryKeyspace): Stored {
  const index = Math.floor(p.now / p.windowUs);
  const stored = ks.get<Stored>(p.key);
  if (stored?.index === index) return { index, current: stored.current, previous: stored.previous };
  if (stored?.index === index - 1) return { index, current: 0, previous: stored.current };
  return { index, current: 0, previous: 0 };
}

function retryAfterUs(
  p: AlgorithmParams,
  current: number,
  previous: number,
  elapsed: number,
): number {
  if (current + p.cost <= p.limit) {
    return p.windowUs - elapsed - ((p.limit - current - p.cost) * p.windowUs) / previous;
  }
  const inNext = p.windowUs - ((p.limit - p.cost) * p.windowUs) / current;
  return p.windowUs - elapsed + Math.max(0, inNext);
}

function check(p: AlgorithmParams, ks: MemoryKeyspace): State {
  const { index, current, previous } = read(p, ks);
  const elapsed = p.now - index * p.windowUs;
  const used = (previous * (p.windowUs - elapsed)) / p.windowUs + current;
  const allowed = !(used + p.cost > p.limit);
  const currentAfter = current + (allowed ? p.cost : 0);
  let resetUs = 0;
  if (currentAfter > 0) resetUs = 2 * p.windowUs - elapsed;
  else if (previous > 0) resetUs = p.windowUs - elapsed;
  const base = { index, current, previous, elapsed, resetUs };
  if (!allowed) {
    const retry = Math.max(0, retryAfterUs(p, current, previous, elapsed));
    return {
      ...base,
      allowed,
      remaining: Math.max(0, Math.floor(p.limit - used)),
      retryAfterUs: retry,
    };
  }
  return {
    ...base,
    allowed,
    remaining: Math.max(0, Math.floor(p.limit - used - p.cost)),
    retryAfterUs: 0,
  };
}

/** Mirrors lua/sliding-window-counter.lua. */
export const slidingWindowCounter: MemoryAlgorithm<State> = {
  check,
  commit(p, st, ks) {
    const value: Stored = { index: st.index, current: st.current + p.cost, previous: st.previous };
    ks.set(p.key, value, toMs(2 * p.windowUs - st.elapsed));
  },
  refund(p, ks) {
    const state = read(p, ks);
    const charged = Math.floor(p.charged / p.windowUs);
    if (charged === state.index && state.current > 0) {
      state.current = Math.max(0, state.current - p.cost);
    } else if (charged === state.index - 1 && state.previous > 0) {
      state.previous = Math.max(0, state.previous - p.cost);
    } else return;
    ks.replace(p.key, state);
  },
};
