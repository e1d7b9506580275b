import type { MemoryKeyspace } from '../memory-keyspace';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
  type MemoryAlgorithm,
} from './memory-algorithm.interface';

interface State extends CheckResult {
  count: number;
}

/** Ascending timestamps (µs) of admitted units: the sorted set of the Lua version. */
function logOf(p: AlgorithmParams, ks: MemoryKeyspace): number[] {
  return ks.get<number[]>(p.key) ?? [];
}

/** Index of the first entry above `bound` (binary search: a log of 10,000 costs 14 steps). */
function firstAbove(log: readonly number[], bound: number): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (log[mid] > bound) high = mid;
    else low = mid + 1;
  }
  return low;
}

function check(p: AlgorithmParams, ks: MemoryKeyspace): State {
  const log = logOf(p, ks);
  const first = firstAbove(log, p.now - p.windowUs);
  const count = log.length - first;
  const newest = count > 0 ? log[log.length - 1] : 0;
  if (count + p.cost > p.limit) {
    let retryAfterUs = 0;
    let resetUs = 0;
    if (count > 0) {
      const nth = log[first + Math.max(0, count + p.cost - p.limit - 1)];
      if (nth !== undefined) retryAfterUs = Math.max(0, nth + p.windowUs - p.now);
      resetUs = Math.max(0, newest + p.windowUs - p.now);
    }
    return {
      count,
      allowed: false,
      remaining: Math.max(0, p.limit - count),
      retryAfterUs,
      resetUs,
    };
  }
  let resetUs = p.cost > 0 ? p.windowUs : 0;
  if (p.cost === 0 && count > 0) resetUs = Math.max(0, newest + p.windowUs - p.now);
  return { count, allowed: true, remaining: p.limit - count - p.cost, retryAfterUs: 0, resetUs };
}

/** Mirrors lua/sliding-window.lua. */
export const slidingWindow: MemoryAlgorithm<State> = {
  check,
  commit(p, _st, ks) {
    // Trims what left the window and adds ours where it belongs (at the end, unless a test clock
    // went back): no filtering or sorting of the whole log per request.
    const log = logOf(p, ks);
    log.splice(0, firstAbove(log, p.now - p.windowUs));
    const at = Math.floor(p.now);
    const position = firstAbove(log, at);
    log.splice(position, 0, ...Array<number>(p.cost).fill(at));
    ks.set(p.key, log, toMs(p.windowUs));
  },
  refund(p, ks) {
    const log = ks.get<number[]>(p.key);
    if (!log) return;
    // The entries added when the cost was charged, as lua/sliding-window.lua.
    const charged = Math.floor(p.charged);
    let left = p.cost;
    for (let i = log.length - 1; i >= 0 && left > 0; i--) {
      if (log[i] === charged) {
        log.splice(i, 1);
        left--;
      }
    }
  },
};
