import type { MemoryKeyspace } from '../memory-keyspace';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
  type MemoryAlgorithm,
} from './memory-algorithm.interface';

interface State extends CheckResult {
  newAhead: number;
}

/** The TAT as lua/gcra.lua stores it: whole microseconds and a fraction in 2^-32 µs. */
interface Stored {
  whole: number;
  fraction: number;
}

const FRACTION = 2 ** 32;
/** Past 2^53 µs lua/gcra.lua writes the TAT as one number (`%d` would overflow). */
const EXACT = 2 ** 53;

function aheadOf(p: AlgorithmParams, ks: MemoryKeyspace): number {
  const stored = ks.get<Stored>(p.key);
  if (stored === undefined) return 0;
  return Math.max(0, stored.whole - p.now + stored.fraction / FRACTION);
}

function store(p: AlgorithmParams, ks: MemoryKeyspace, ahead: number): void {
  if (p.now + ahead >= EXACT) {
    ks.set(p.key, { whole: p.now + ahead, fraction: 0 } satisfies Stored, toMs(ahead));
    return;
  }
  let whole = Math.floor(ahead);
  let fraction = Math.floor((ahead - whole) * FRACTION + 0.5);
  if (fraction === FRACTION) [whole, fraction] = [whole + 1, 0];
  ks.set(p.key, { whole: p.now + whole, fraction } satisfies Stored, toMs(ahead));
}

const tolerance = (capacityUs: number, interval: number): number =>
  Math.min(1e-6 + capacityUs * 1e-12, interval * 1e-3);

/** Mirrors lua/gcra.lua, operation for operation, so both stores round alike. */
export const gcra: MemoryAlgorithm<State> = {
  check(p, ks) {
    const interval = p.windowUs / p.limit;
    const ahead = aheadOf(p, ks);
    const newAhead = ahead + p.cost * interval;
    const capacity = p.burst * interval;
    const slack = tolerance(capacity, interval);
    if (newAhead - capacity > slack) {
      return {
        newAhead,
        allowed: false,
        remaining: Math.max(0, Math.floor(p.burst - (ahead - slack) / interval)),
        retryAfterUs: newAhead - capacity,
        resetUs: ahead,
      };
    }
    return {
      newAhead,
      allowed: true,
      remaining: Math.max(0, Math.floor(p.burst - (newAhead - slack) / interval)),
      retryAfterUs: 0,
      resetUs: newAhead,
    };
  },
  commit(p, st, ks) {
    store(p, ks, st.newAhead);
  },
  refund(p, ks) {
    const ahead = aheadOf(p, ks) - (p.cost * p.windowUs) / p.limit;
    if (ahead <= 0) return ks.del(p.key);
    store(p, ks, ahead);
  },
};
