import { resolveAdaptiveOptions } from '../../adaptive/adaptive-options';
import type { PolicyRequest } from '../../engine/policy-request';
import type { RateLimitPolicy } from '../../policy/rate-limit-policy.interface';
import { AdaptiveRequests } from './adaptive-requests';

const policy = (over: Partial<RateLimitPolicy> = {}): RateLimitPolicy => ({
  name: 'p',
  algo: 'fixed-window',
  limit: 100,
  windowMs: 60_000,
  burst: 100,
  blockForMs: 0,
  mode: 'enforce',
  enabled: true,
  adaptive: true,
  ...over,
});
const req = (p: RateLimitPolicy): PolicyRequest => ({ policy: p, identity: 'ip:1', cost: 1 });
const options = resolveAdaptiveOptions({
  mode: 'enforce',
  tiers: [{ name: 'free' }, { name: 'default' }, { name: 'pro', exempt: true }],
});

describe('AdaptiveRequests', () => {
  it('sheds exactly the share of a tier, by a running credit, and never another tier', () => {
    const shares: Record<string, number> = { free: 0.3 };
    const adaptive = new AdaptiveRequests(options, (tier) => shares[tier] ?? 0);
    const free = [req(policy({ tier: 'free' }))];
    const pro = [req(policy({ tier: 'pro' }))];
    let shedFree = 0;
    let shedPro = 0;
    for (let i = 0; i < 100; i++) {
      if (!Array.isArray(adaptive.adjust(free, true))) shedFree++;
      if (!Array.isArray(adaptive.adjust(pro, true))) shedPro++;
    }
    expect(shedFree).toBe(30);
    expect(shedPro).toBe(0);
  });

  it('sheds by the tier the resolver named, even one the policy declares no thresholds for', () => {
    const adaptive = new AdaptiveRequests(options, (tier) => (tier === 'free' ? 1 : 0));
    // The policy's own thresholds (no `tier` on it), the request in tier 'free' all the same.
    const named: PolicyRequest = { ...req(policy()), tier: 'free' };
    expect(adaptive.adjust([named], true)).toEqual({ request: named, tier: 'free' });
    expect(Array.isArray(adaptive.adjust([req(policy())], true))).toBe(true);
  });

  it('decides opted-in policies on configured x multiplier; the same array when nothing changes', () => {
    const adaptive = new AdaptiveRequests(options, () => 0);
    const requests = [req(policy()), req(policy({ name: 'q', adaptive: false }))];
    expect(adaptive.adjust(requests, true)).toBe(requests);
    expect(adaptive.setMultipliers({ default: 0.5, free: 0.2 })).toBe(false);
    const adjusted = adaptive.adjust(requests, true) as PolicyRequest[];
    expect(adjusted.map((r) => r.policy.limit)).toEqual([50, 100]);
    expect(requests[0].policy.limit).toBe(100);
    // One scaled copy per policy while the multipliers hold.
    expect((adaptive.adjust(requests, true) as PolicyRequest[])[0].policy).toBe(adjusted[0].policy);
    // Shadow: computed, not applied.
    expect(adaptive.adjust(requests, false)).toBe(requests);
    expect(adaptive.setMultipliers({ default: 0.8, free: 0.2 })).toBe(true);
    expect((adaptive.adjust(requests, true) as PolicyRequest[])[0].policy.limit).toBe(80);
  });
});
