import type { MemoryKeyspace } from '../memory-keyspace';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
  type MemoryAlgorithm,
} from './memory-algorithm.interface';

interface State extends CheckResult {
  tokens: number;
}
type Stored = { tokens: number; last: number };

function tokensNow(p: AlgorithmParams, ks: MemoryKeyspace): number {
  const stored = ks.get<Stored>(p.key);
  if (!stored) return p.burst;
  return Math.min(
    p.burst,
    stored.tokens + (Math.max(0, p.now - stored.last) * p.limit) / p.windowUs,
  );
}

function store(p: AlgorithmParams, ks: MemoryKeyspace, tokens: number): void {
  if (tokens >= p.burst) return ks.del(p.key);
  ks.set(p.key, { tokens, last: p.now }, toMs(((p.burst - tokens) * p.windowUs) / p.limit));
}

/** Mirrors lua/token-bucket.lua. */
export const tokenBucket: MemoryAlgorithm<State> = {
  check(p, ks) {
    const tokens = tokensNow(p, ks);
    if (p.cost > tokens) {
      return {
        tokens,
        allowed: false,
        remaining: Math.floor(tokens),
        retryAfterUs: ((p.cost - tokens) * p.windowUs) / p.limit,
        resetUs: ((p.burst - tokens) * p.windowUs) / p.limit,
      };
    }
    return {
      tokens,
      allowed: true,
      remaining: Math.max(0, Math.floor(tokens - p.cost)),
      retryAfterUs: 0,
      resetUs: ((p.burst - (tokens - p.cost)) * p.windowUs) / p.limit,
    };
  },
  commit: (p, st, ks) => store(p, ks, st.tokens - p.cost),
  refund: (p, ks) => store(p, ks, Math.min(p.burst, tokensNow(p, ks) + p.cost)),
};
