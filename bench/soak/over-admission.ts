/**
 * Over-admission check from client-side timestamps only. Redis decides on its own TIME, which
 * on this host is the same clock as Date.now(); all the client knows is that the decision of a
 * request fell in [send, recv + 1) (Date.now() floors to the ms). So a violation is counted only
 * when it holds WHATEVER the true decision times were: no false positives, at the price of
 * missing violations hidden by latency.
 *
 * Admitted requests are fed in the order their responses arrived (recv non-decreasing). For each
 * one, j, the check looks at sets of the same client and policy whose latest response is j's:
 *  - window algorithms (fixed-window; sliding-window-counter never lets a window's own count pass
 *    the limit): requests whose [send, recv+1] lies inside one epoch-aligned window, at most
 *    `limit`;
 *  - sliding-window: requests with send >= recv_j + 1 - W span less than W, at most `limit`;
 *  - token-bucket, leaky-bucket, gcra: for every anchor a (a send time), the requests sent at or
 *    after a were decided within less than T = recv_j + 1 - a, so at most
 *    burst + floor(limit * T / W) (capacity at the first decision plus the refill; an integer).
 *    floor, not ceil: ceil adds a token to every set, which hides exactly the excess of one that
 *    an off-by-one bug admits from idle. The real span is shorter than T by at least the time
 *    between a decision and its response (well over 0.1 ms, i.e. 1e-4 of a token here), far more
 *    than any float or microsecond rounding inside the limiter. The excess over the looser
 *    burst + ceil(limit * T / W) + 1 is counted too (`overLoose`), to tell rounding from bugs.
 * j counts as one over-admission when such a set is too large: the count is the excess, because
 * every request admitted beyond a bound is the latest of some set that exceeds it.
 * Memory stays bounded: only `horizonWindows` windows of admitted requests are kept per key.
 */
import { ALGOS, type Algo, type SoakPolicy } from './policies';

interface Admit {
  readonly send: number;
  /** recv + 1: the decision happened strictly before it. */
  readonly end: number;
}

export interface Violation {
  readonly identity: number;
  readonly algo: Algo;
  readonly count: number;
  readonly bound: number;
  readonly spanMs: number;
  readonly at: string;
}

export interface AlgoCheck {
  admitted: number;
  /** Admitted requests the rule could place (window rules skip one that straddles a boundary). */
  checked: number;
  overAdmissions: number;
  /** Bucket rules: over burst + ceil(limit * T / W) + 1 (for the window rules, same as above). */
  overLoose: number;
  maxExcess: number;
  /** The first few, to compare with the instances' fault counters over time. */
  examples: Violation[];
}

export interface CheckSummary {
  readonly byAlgo: Record<Algo, AlgoCheck>;
  readonly trackedKeys: number;
  readonly trackedRequests: number;
}

export class OverAdmissionChecker {
  private readonly keys = new Map<number, Admit[]>();
  private readonly byAlgo = Object.fromEntries(
    ALGOS.map((a): [Algo, AlgoCheck] => [
      a,
      { admitted: 0, checked: 0, overAdmissions: 0, overLoose: 0, maxExcess: 0, examples: [] },
    ]),
  ) as Record<Algo, AlgoCheck>;
  private readonly horizonMs: number;

  constructor(
    private readonly policies: readonly SoakPolicy[],
    horizonWindows = 3,
  ) {
    this.horizonMs = horizonWindows * Math.max(...policies.map((p) => p.windowMs));
  }

  admitted(identity: number, policyIndex: number, sendMs: number, recvMs: number): void {
    const policy = this.policies[policyIndex];
    const key = identity * this.policies.length + policyIndex;
    let history = this.keys.get(key);
    if (!history) this.keys.set(key, (history = []));
    const j: Admit = { send: sendMs, end: recvMs + 1 };
    history.push(j);
    const stats = this.byAlgo[policy.algo];
    stats.admitted++;
    const found = this.worst(policy, history, j);
    if (!found) return;
    stats.checked++;
    if (found.loose) stats.overLoose++;
    if (found.count <= found.bound) return;
    stats.overAdmissions++;
    stats.maxExcess = Math.max(stats.maxExcess, found.count - found.bound);
    const { count, bound, spanMs } = found;
    const at = new Date(recvMs).toISOString();
    if (stats.examples.length < 5)
      stats.examples.push({ identity, algo: policy.algo, count, bound, spanMs, at });
  }

  /** The set ending with j that is furthest over its bound; undefined if j cannot be placed. */
  private worst(
    policy: SoakPolicy,
    history: readonly Admit[],
    j: Admit,
  ): { count: number; bound: number; spanMs: number; loose?: boolean } | undefined {
    const W = policy.windowMs;
    switch (policy.algo) {
      case 'fixed-window':
      case 'sliding-window-counter': {
        const start = Math.floor(j.send / W) * W;
        if (j.end > start + W) return undefined;
        const count = history.filter((e) => e.send >= start && e.end <= start + W).length;
        return { count, bound: policy.limit, spanMs: W, loose: count > policy.limit };
      }
      case 'sliding-window': {
        const from = j.end - W;
        const count = history.filter((e) => e.send >= from).length;
        return { count, bound: policy.limit, spanMs: W, loose: count > policy.limit };
      }
      default: {
        // Anchors from the latest send back: the set "sent at or after a" grows by one each step.
        const sends = history.map((e) => e.send).sort((a, b) => b - a);
        let worst = { count: 0, bound: 0, spanMs: 0 };
        let loose = false;
        sends.forEach((a, i) => {
          const spanMs = j.end - a;
          const refill = (policy.limit * spanMs) / W;
          const bound = policy.burst + Math.floor(refill);
          if (i + 1 > policy.burst + Math.ceil(refill) + 1) loose = true;
          if (i + 1 - bound > worst.count - worst.bound) worst = { count: i + 1, bound, spanMs };
        });
        return { ...worst, loose };
      }
    }
  }

  /** Forgets what no later set can reach (older than the horizon); keeps memory bounded. */
  prune(nowMs: number): void {
    const oldest = nowMs - this.horizonMs;
    for (const [key, history] of this.keys) {
      let drop = 0;
      while (drop < history.length && history[drop].end < oldest) drop++;
      if (drop === history.length) this.keys.delete(key);
      else if (drop > 0) history.splice(0, drop);
    }
  }

  /** Over-admissions so far, all algorithms. */
  overAdmissions(): number {
    return Object.values(this.byAlgo).reduce((sum, a) => sum + a.overAdmissions, 0);
  }

  summary(): CheckSummary {
    let trackedRequests = 0;
    for (const history of this.keys.values()) trackedRequests += history.length;
    return {
      byAlgo: structuredClone(this.byAlgo),
      trackedKeys: this.keys.size,
      trackedRequests,
    };
  }
}
