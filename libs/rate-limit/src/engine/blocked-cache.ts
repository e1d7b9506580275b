import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';

/** Rejections remembered at most (measured: about 660 bytes each with one policy, 7 MB in all). */
export const DEFAULT_REMEMBERED_REJECTIONS = 10_000;
/** Longer keys are kept by their digest: a caller's key must not pin client text in memory. */
const MAX_KEY_LENGTH = 512;

interface Entry {
  readonly untilMs: number;
  readonly atMs: number;
  readonly verdict: RateLimitVerdict;
}

/** What rejectionKey() needs of a request: the same fields as `PolicyRequest`. */
export interface RejectedRequest {
  readonly policy: { readonly name: string; readonly tier?: string };
  readonly identity: string;
  readonly cost: number;
}

/**
 * The cache key of a request's policies, identities and costs. Identities go in as their key
 * tags (`identityTag`, bounded and injective, as in Redis keys), never as the raw client text,
 * which may be a 16 KB header.
 */
export function rejectionKey(
  requests: readonly RejectedRequest[],
  identityTag: (identity: string) => string,
): string {
  // A tier's thresholds are not the policy's: a client moved to another tier is decided anew.
  const one = ({ policy, identity, cost }: RejectedRequest): string =>
    policy.tier === undefined
      ? `${cost}\u0000${policy.name}\u0000${identityTag(identity)}`
      : `${cost}\u0000${policy.name}\u0002${policy.tier}\u0000${identityTag(identity)}`;
  return requests.length === 1 ? one(requests[0]) : requests.map(one).join('\u0001');
}

/**
 * Requests Redis rejected, remembered until the earliest time they could pass, so a client
 * flooding past its limit costs no round trip. Only valid while nothing can make that time
 * earlier: it is cleared when a policy changes or an identity is reset (on every instance).
 * Bounded: the least recently asked-about rejection is forgotten first (it then costs one round
 * trip again, nothing more).
 */
export class BlockedCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(maxEntries = DEFAULT_REMEMBERED_REJECTIONS) {
    this.entries = new LRUCache<string, Entry>({ max: maxEntries });
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, nowMs: number): RateLimitVerdict | undefined {
    const stored = storedKey(key);
    const entry = this.entries.get(stored);
    if (!entry) return undefined;
    if (entry.untilMs <= nowMs) {
      this.entries.delete(stored);
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
      // A quota may end (expire, be removed) before its retry time: only Redis knows when.
      if (d.clientOverride !== undefined) return;
      waitMs = Math.max(waitMs, d.retryAfterMs);
    }
    if (waitMs === 0) return;
    this.entries.set(storedKey(key), { untilMs: nowMs + waitMs, atMs: nowMs, verdict });
  }

  clear(): void {
    this.entries.clear();
  }

  /** Stored keys, for tests: they never carry more than MAX_KEY_LENGTH characters of a key. */
  storedKeys(): string[] {
    return [...this.entries.keys()];
  }
}

function storedKey(key: string): string {
  if (key.length <= MAX_KEY_LENGTH) return key;
  // UTF-16 code units, so that keys differing only in lone surrogates stay apart.
  return `#${createHash('sha256').update(Buffer.from(key, 'utf16le')).digest('base64url')}`;
}

function aged(d: RateLimitDecision, elapsedMs: number): RateLimitDecision {
  return {
    ...d,
    resetMs: Math.max(0, d.resetMs - elapsedMs),
    retryAfterMs: d.retryAfterMs > 0 ? Math.max(1, d.retryAfterMs - elapsedMs) : 0,
  };
}
