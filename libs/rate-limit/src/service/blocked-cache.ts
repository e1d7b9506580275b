import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';

interface Entry {
  readonly untilMs: number;
  readonly atMs: number;
  readonly verdict: RateLimitVerdict;
}

/**
 * Requests Redis rejected, remembered until the earliest time they could pass, so a client
 * flooding past its limit costs no round trip. Only valid while nothing can make that time
 * earlier: it is cleared when a policy changes or an identity is reset (on every instance).
 */
export class BlockedCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 10_000) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, nowMs: number): RateLimitVerdict | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.untilMs <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    const elapsed = nowMs - entry.atMs;
    return { ...entry.verdict, decisions: entry.verdict.decisions.map((d) => aged(d, elapsed)) };
  }

  /** Remembers a rejection decided by Redis whose every rejecting policy names a retry time. */
  remember(key: string, verdict: RateLimitVerdict, nowMs: number): void {
    if (verdict.allowed || verdict.source !== 'redis') return;
    let waitMs = 0;
    for (const d of verdict.decisions) {
      if (d.allowed || d.shadow) continue;
      if (d.retryAfterMs <= 0) return; // never admissible (cost above capacity): not worth keeping
      waitMs = Math.max(waitMs, d.retryAfterMs);
    }
    if (waitMs === 0) return;
    if (this.entries.size >= this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, { untilMs: nowMs + waitMs, atMs: nowMs, verdict });
  }

  clear(): void {
    this.entries.clear();
  }
}

function aged(d: RateLimitDecision, elapsedMs: number): RateLimitDecision {
  return {
    ...d,
    resetMs: Math.max(0, d.resetMs - elapsedMs),
    retryAfterMs: d.retryAfterMs > 0 ? Math.max(1, d.retryAfterMs - elapsedMs) : 0,
  };
}
