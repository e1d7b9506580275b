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
  moved: boolean;
}
/** As lua/sliding-window-counter.lua: a window, its length and its two counts. */
type Stored = { index: number; windowUs: number; current: number; previous: number };
type Placed = { current: number; previous: number };

/** As `swc_place`: the stored counts placed in the windows of the current length. */
function place(p: AlgorithmParams, index: number, s: Stored): Placed {
  const endUs = (s.index + 1) * s.windowUs;
  const placed = { current: 0, previous: 0 };
  if (endUs > p.now) {
    placed.current = s.current;
    const j = Math.floor((endUs - s.windowUs - 1) / p.windowUs);
    if (j >= index) placed.current += s.previous;
    else if (j === index - 1) placed.previous = s.previous;
  } else if (endUs + s.windowUs > p.now) {
    const j = Math.floor((endUs - 1) / p.windowUs);
    if (j >= index) placed.current = s.current;
    else if (j === index - 1) placed.previous = s.current;
  }
  return placed;
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
  const index = Math.floor(p.now / p.windowUs);
  const stored = ks.get<Stored>(p.key);
  const { current, previous } = stored ? place(p, index, stored) : { current: 0, previous: 0 };
  const moved = stored !== undefined && stored.windowUs !== p.windowUs;
  const elapsed = p.now - index * p.windowUs;
  const used = (previous * (p.windowUs - elapsed)) / p.windowUs + current;
  const allowed = !(used + p.cost > p.limit);
  const currentAfter = current + (allowed ? p.cost : 0);
  let resetUs = 0;
  if (currentAfter > 0) resetUs = 2 * p.windowUs - elapsed;
  else if (previous > 0) resetUs = p.windowUs - elapsed;
  const base = { index, current, previous, elapsed, moved, resetUs };
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

/** As `swc_write`: kept while it weighs (the current count to the next window's end). */
function store(
  p: AlgorithmParams,
  ks: MemoryKeyspace,
  index: number,
  elapsed: number,
  c: Placed,
): void {
  const value: Stored = { index, windowUs: p.windowUs, ...c };
  if (c.current > 0) ks.set(p.key, value, toMs(2 * p.windowUs - elapsed));
  else if (c.previous > 0) ks.set(p.key, value, toMs(p.windowUs - elapsed));
  else ks.del(p.key);
}

/** Mirrors lua/sliding-window-counter.lua. */
export const slidingWindowCounter: MemoryAlgorithm<State> = {
  check,
  commit(p, st, ks) {
    store(p, ks, st.index, st.elapsed, { current: st.current + p.cost, previous: st.previous });
  },
  move(p, st, ks) {
    store(p, ks, st.index, st.elapsed, { current: st.current, previous: st.previous });
  },
  refund(p, ks) {
    const stored = ks.get<Stored>(p.key);
    if (!stored) return;
    const index = Math.floor(p.now / p.windowUs);
    const before = place(p, index, stored);
    const charged = Math.floor(p.charged / stored.windowUs);
    const given = { ...stored };
    if (charged === given.index && given.current > 0) {
      given.current = Math.max(0, given.current - p.cost);
    } else if (charged === given.index - 1 && given.previous > 0) {
      given.previous = Math.max(0, given.previous - p.cost);
    } else return;
    const after = place(p, index, given);
    if (after.current === before.current && after.previous === before.previous) return;
    if (stored.windowUs === p.windowUs) {
      ks.replace(p.key, { index, windowUs: p.windowUs, ...after } satisfies Stored);
    } else {
      store(p, ks, index, p.now - index * p.windowUs, after);
    }
  },
};
