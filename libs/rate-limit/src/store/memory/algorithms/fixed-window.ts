import type { MemoryKeyspace } from '../memory-keyspace';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
  type MemoryAlgorithm,
} from './memory-algorithm.interface';

interface State extends CheckResult {
  index: number;
  endUs: number;
  count: number;
  moved: boolean;
}
/** As lua/fixed-window.lua: the count and the end of the window it belongs to. */
type Stored = { endUs: number; count: number };

function check(p: AlgorithmParams, ks: MemoryKeyspace): State {
  const index = Math.floor(p.now / p.windowUs);
  const endUs = (index + 1) * p.windowUs;
  const stored = ks.get<Stored>(p.key);
  let count = 0;
  let moved = false;
  if (stored?.endUs === endUs) count = stored.count;
  else if (stored && stored.endUs > p.now) {
    // Counted in a window of another length that still runs: in force, and moved here.
    count = stored.count;
    moved = true;
  }
  const resetUs = endUs - p.now;
  const base = { index, endUs, count, moved, resetUs };
  if (count + p.cost > p.limit) {
    return {
      ...base,
      allowed: false,
      remaining: Math.max(0, p.limit - count),
      retryAfterUs: resetUs,
    };
  }
  return { ...base, allowed: true, remaining: p.limit - count - p.cost, retryAfterUs: 0 };
}

function store(p: AlgorithmParams, st: State, ks: MemoryKeyspace, count: number): void {
  ks.set(p.key, { endUs: st.endUs, count } satisfies Stored, toMs(st.resetUs));
}

/** Mirrors lua/fixed-window.lua. */
export const fixedWindow: MemoryAlgorithm<State> = {
  check,
  commit(p, st, ks) {
    store(p, st, ks, st.count + p.cost);
  },
  move(p, st, ks) {
    store(p, st, ks, st.count);
  },
  refund(p, ks) {
    const st = check(p, ks);
    if (Math.floor(p.charged / p.windowUs) !== st.index || st.count === 0) return;
    store(p, st, ks, Math.max(0, st.count - p.cost));
  },
};
