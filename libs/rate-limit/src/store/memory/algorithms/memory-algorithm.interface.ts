import type { MemoryKeyspace } from '../memory-keyspace';

/** The same fields as the Lua `p` table, in microseconds. */
export interface AlgorithmParams {
  readonly key: string;
  readonly now: number;
  readonly limit: number;
  readonly windowUs: number;
  readonly burst: number;
  readonly cost: number;
  /** Refund only: when the cost was charged (µs), as `p.charged` in lua/decide.lua. */
  readonly charged: number;
}

export interface CheckResult {
  allowed: boolean;
  remaining: number;
  resetUs: number;
  retryAfterUs: number;
  /** A count carried over a change of `window`: `move` writes it when nothing is charged. */
  moved?: boolean;
}

/** Mirrors one `.lua` algorithm: `check` reads only, `commit` charges, `refund` gives back. */
export interface MemoryAlgorithm<S extends CheckResult = CheckResult> {
  check(p: AlgorithmParams, ks: MemoryKeyspace): S;
  commit(p: AlgorithmParams, st: S, ks: MemoryKeyspace): void;
  refund(p: AlgorithmParams, ks: MemoryKeyspace): void;
  /** As `move` in the Lua: writes a count moved to a new window (`st.moved`), charging nothing. */
  move?(p: AlgorithmParams, st: S, ks: MemoryKeyspace): void;
}

/** As `MAX_MS` in lua/prelude.lua: the longest expiry or wait, 2^45 ms (about 1,100 years). */
export const MAX_MS = 2 ** 45;

/**
 * As `to_ms` in lua/prelude.lua: rounded to the microsecond, then up to the millisecond, at most
 * MAX_MS.
 */
export const toMs = (us: number): number =>
  Math.min(MAX_MS, Math.ceil(Math.floor(us + 0.5) / 1000));
