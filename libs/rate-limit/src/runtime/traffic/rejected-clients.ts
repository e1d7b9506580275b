/** Identities tracked per policy between two flushes; hostile floods of new ones stay bounded. */
export const MAX_TRACKED_PER_POLICY = 1_000;

/**
 * This instance's rejections per policy and identity since the last flush: a bounded count.
 * When a policy's map is full, identities rejected only once are dropped to make room (the
 * heavy hitters, which the top-k is for, stay), but only when they are at least half of the
 * map: each sweep then frees half of what it walks, entries that were each added once, so a
 * rejection costs O(1) amortised. Otherwise the policy takes no new identity until the next
 * flush. Memory is O(policies x MAX_TRACKED_PER_POLICY).
 */
export class RejectedClients {
  private byPolicy = new Map<string, Map<string, number>>();
  /** Per policy, how many of its identities were rejected once. */
  private once = new Map<string, number>();
  /** Policies that take no new identity until take(). */
  private closed = new Set<string>();

  constructor(private readonly maxPerPolicy = MAX_TRACKED_PER_POLICY) {}

  add(policy: string, identity: string): void {
    let counts = this.byPolicy.get(policy);
    if (!counts) this.byPolicy.set(policy, (counts = new Map()));
    const known = counts.get(identity);
    if (known !== undefined) {
      counts.set(identity, known + 1);
      if (known === 1) this.once.set(policy, (this.once.get(policy) ?? 0) - 1);
      return;
    }
    if (counts.size >= this.maxPerPolicy) {
      if (this.closed.has(policy)) return;
      if ((this.once.get(policy) ?? 0) * 2 < this.maxPerPolicy) {
        this.closed.add(policy);
        return;
      }
      for (const [tracked, count] of counts) if (count === 1) counts.delete(tracked);
      this.once.set(policy, 0);
    }
    counts.set(identity, 1);
    this.once.set(policy, (this.once.get(policy) ?? 0) + 1);
  }

  /** The `top` most rejected identities of each policy, highest first; forgets everything. */
  take(top: number): Map<string, [identity: string, rejected: number][]> {
    const taken = new Map<string, [string, number][]>();
    for (const [policy, counts] of this.byPolicy) {
      taken.set(policy, [...counts].sort((a, b) => b[1] - a[1]).slice(0, top));
    }
    this.byPolicy = new Map();
    this.once = new Map();
    this.closed = new Set();
    return taken;
  }
}
