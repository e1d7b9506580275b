import { isAdaptivePolicy, type ResolvedAdaptiveOptions } from '../../adaptive/adaptive-options';
import { scaledPolicy } from '../../adaptive/scaled-policy';
import type { PolicyRequest } from '../../engine/policy-request';
import type { RateLimitPolicy } from '../../policy/rate-limit-policy.interface';

/** A request the local loop rejects before it is decided: its first policy in a shed tier. */
export interface AdaptiveShed {
  readonly request: PolicyRequest;
  readonly tier: string;
}

const CREDIT_EPSILON = 1e-9;

/**
 * The tier adaptive protection counts a request in: the one its resolver named (declared by the
 * policy or not), else `default`.
 */
export const adaptiveTierName = (request: PolicyRequest): string =>
  request.tier ?? request.policy.tier ?? 'default';

/**
 * What adaptive protection does to one request's policies, in memory: the local loop's drop
 * share first (a tier at share s loses exactly s of its requests, by a running credit rather
 * than a coin, so a test and an operator see the share itself), then each opted-in policy's
 * thresholds x its tier's multiplier. The configured policies are never changed; scaled copies
 * are kept per policy until the multipliers move.
 */
export class AdaptiveRequests {
  private multipliers: Readonly<Record<string, number>> = {};
  private scaled = new WeakMap<RateLimitPolicy, RateLimitPolicy>();
  private readonly credit = new Map<string, number>();

  constructor(
    private readonly options: ResolvedAdaptiveOptions,
    private readonly dropShare: (tier: string) => number,
  ) {}

  /** Takes the multipliers in force; true when one rose (remembered rejections may end sooner). */
  setMultipliers(next: Readonly<Record<string, number>>): boolean {
    let changed = false;
    let rose = false;
    for (const tier of new Set([...Object.keys(next), ...Object.keys(this.multipliers)])) {
      const before = this.multipliers[tier] ?? 1;
      const after = next[tier] ?? 1;
      if (before !== after) changed = true;
      if (after > before) rose = true;
    }
    if (changed) {
      this.multipliers = { ...next };
      this.scaled = new WeakMap();
    }
    return rose;
  }

  /** The multiplier of the request's thresholds now: 1 unless its policy opted in. */
  multiplierOf(request: PolicyRequest): number {
    if (!isAdaptivePolicy(this.options, request.policy)) return 1;
    return this.multipliers[adaptiveTierName(request)] ?? 1;
  }

  /**
   * The requests to decide (the same array when nothing is scaled), or the one the local loop
   * sheds. `apply` false (shadow): the shed is counted by the caller, nothing is changed.
   */
  adjust(requests: readonly PolicyRequest[], apply: boolean): PolicyRequest[] | AdaptiveShed {
    let adjusted: PolicyRequest[] | undefined;
    for (let i = 0; i < requests.length; i++) {
      const request = requests[i];
      const policy = request.policy;
      if (!isAdaptivePolicy(this.options, policy)) continue;
      const tier = adaptiveTierName(request);
      if (this.drops(tier)) return { request, tier };
      const multiplier = this.multipliers[tier] ?? 1;
      if (!apply || multiplier === 1) continue;
      adjusted ??= [...requests];
      adjusted[i] = { ...request, policy: this.scaledOf(policy, multiplier) };
    }
    return adjusted ?? (requests as PolicyRequest[]);
  }

  private drops(tier: string): boolean {
    const share = this.dropShare(tier);
    if (share <= 0) return false;
    const credit = (this.credit.get(tier) ?? 0) + share;
    // Sums of shares such as 0.3 fall a hair short of whole numbers in binary.
    const drop = credit >= 1 - CREDIT_EPSILON;
    this.credit.set(tier, drop ? credit - 1 : credit);
    return drop;
  }

  private scaledOf(policy: RateLimitPolicy, multiplier: number): RateLimitPolicy {
    let scaled = this.scaled.get(policy);
    if (!scaled) this.scaled.set(policy, (scaled = scaledPolicy(policy, multiplier)));
    return scaled;
  }
}
