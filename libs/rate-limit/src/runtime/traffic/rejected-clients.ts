/** Identities tracked per policy between two flushes; hostile floods of new ones stay bounded. */
export const MAX_TRACKED_PER_POLICY = 1_000;

/**
 * This instance's rejections per policy and identity since the last flush: a bounded count.
 * When a policy's map is full, identities rejected only once are dropped to make room (the
 * heavy hitters, which the top-k is for, stay); when none can be, the policy takes no new
 * identity until the next flush. Each sweep removes entries that were each added once, or
 * closes the policy, so a rejection costs O(1) amortised whatever the traffic; memory is
 * O(policies x MAX_TRACKED_PER_POLICY).
 */
export class RejectedClients {
  private byPolicy = new Map<string, Map<string, number>>();
  /** Policies whose map is full of identities rejected more than once, until take(). */
  private closed = new Set<string>();

  constructor(private readonly maxPerPolicy = MAX_TRACKED_PER_POLICY) {}

  add(policy: string, identity: string): void {
    let counts = this.byPolicy.get(policy);
    if (!counts) this.byPolicy.set(policy, (counts = new Map()));
    const known = counts.get(identity);
    if (known !== undefined) {
      counts.set(identity, known + 1);
      return;
    }
    if (counts.size >= this.maxPerPolicy) {
      if (this.closed.has(policy)) return;
      for (const [tracked, count] of counts) if (count <= 1) counts.delete(tracked);
      if (counts.size >= this.maxPerPolicy) {
        this.closed.add(policy);
        return;
      }
    }
    counts.set(identity, 1);
  }

  /** The `top` most rejected identities of each policy, highest first; forgets everything. */
  take(top: number): Map<string, [identity: string, rejected: number][]> {
    const taken = new Map<string, [string, number][]>();
    for (const [policy, counts] of this.byPolicy) {
      taken.set(policy, [...counts].sort((a, b) => b[1] - a[1]).slice(0, top));
    }
    this.byPolicy = new Map();
    this.closed = new Set();
    return taken;
  }
}
