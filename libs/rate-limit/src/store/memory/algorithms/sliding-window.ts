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
function inWindow(p: AlgorithmParams, ks: MemoryKeyspace): number[] {
  const log = ks.get<number[]>(p.key) ?? [];
  const oldest = p.now - p.windowUs;
  return log.filter((t) => t > oldest);
}

function check(p: AlgorithmParams, ks: MemoryKeyspace): State {
  const entries = inWindow(p, ks);
  const count = entries.length;
  const newest = count > 0 ? entries[count - 1] : 0;
  if (count + p.cost > p.limit) {
    let retryAfterUs = 0;
    let resetUs = 0;
    if (count > 0) {
      const nth = entries[Math.max(0, count + p.cost - p.limit - 1)];
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
    const log = inWindow(p, ks);
    for (let i = 0; i < p.cost; i++) log.push(p.now);
    log.sort((a, b) => a - b);
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
