import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { normalizePolicy } from '../policy/normalize-policy';
import type { TierThresholds } from '../policy/policy-thresholds';
import type { RateLimitOptions } from '../policy/rate-limit-options.interface';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { PolicyRegistry } from './policy-registry';

const FIRST = 'PlansController.list';
const SECOND = 'PlansController.show';
const SLIDING_PROBLEM =
  `limit must be at most 10000 with algo 'sliding-window', which keeps one entry per request ` +
  `in the window (got 10001); use 'sliding-window-counter' for larger limits`;

const policyOf = (options: Partial<RateLimitOptions> = {}): RateLimitPolicy =>
  normalizePolicy({ limit: 10, window: '1s', ...options } as RateLimitOptions, 'api', FIRST);

const tiersOf = (entries: Record<string, TierThresholds>): Map<string, TierThresholds> =>
  new Map(Object.entries(entries));

const DECLARED = { pro: { limit: 100 }, slow: { windowMs: 60_000 } };

describe('PolicyRegistry tiers', () => {
  let registry: PolicyRegistry;
  let changes: [string, RateLimitPolicy][];

  function registerApi(
    options: Partial<RateLimitOptions> = {},
    tiers: Record<string, TierThresholds> = DECLARED,
  ): void {
    registry.register(
      policyOf(options),
      FIRST,
      options.burst === undefined,
      undefined,
      tiersOf(tiers),
    );
  }

  beforeEach(() => {
    registry = new PolicyRegistry();
    changes = [];
    registry.onChange((name, policy) => changes.push([name, policy]));
  });

  it("answers each declared tier's effective thresholds, in declaration order", () => {
    registerApi();
    const base = registry.get('api')!;
    expect(base.tier).toBeUndefined();
    expect(registry.getTier('api', 'pro')).toEqual({
      ...base,
      limit: 100,
      burst: 100,
      tier: 'pro',
    });
    expect(registry.getTier('api', 'slow')).toEqual({ ...base, windowMs: 60_000, tier: 'slow' });
    expect([...registry.tiers('api').keys()]).toEqual(['pro', 'slow']);
    expect([...registry.declaredTiers('api')]).toEqual([
      ['pro', { limit: 100 }],
      ['slow', { windowMs: 60_000 }],
    ]);
  });

  it('answers nothing for an undeclared tier or an unknown policy', () => {
    registerApi();
    registry.register(normalizePolicy({ limit: 1, window: 1 }, 'plain', FIRST), FIRST);
    expect(registry.getTier('api', 'gold')).toBeUndefined();
    expect(registry.getTier('nope', 'pro')).toBeUndefined();
    expect(registry.tiers('nope').size).toBe(0);
    expect(registry.declaredTiers('nope').size).toBe(0);
    expect(registry.tiers('plain').size).toBe(0);
    expect(registry.declaredTiers('plain').size).toBe(0);
  });

  it('accepts a second declaration of the same tiers, in any order', () => {
    registerApi();
    registry.register(
      policyOf(),
      SECOND,
      true,
      undefined,
      tiersOf({ slow: { windowMs: 60_000 }, pro: { limit: 100 } }),
    );
    expect(registry.names()).toEqual(['api']);
  });

  it.each([
    ['other values', { pro: { limit: 101 }, slow: { windowMs: 60_000 } }],
    ['a tier more', { ...DECLARED, gold: { limit: 5 } }],
    ['a tier less', { pro: { limit: 100 } }],
    ['no tiers', {}],
  ])('refuses a second declaration of the same name with %s', (_, tiers) => {
    registerApi();
    let error: unknown;
    try {
      registry.register(policyOf(), SECOND, true, undefined, tiersOf(tiers));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(RateLimitConfigError);
    expect(error).toMatchObject({ where: SECOND, field: 'tiers' });
    expect((error as Error).message).toBe(
      `Invalid rate limit options on ${SECOND}: "tiers" differs from policy "api" as declared ` +
        `on ${FIRST}; give one of them another name`,
    );
    expect([...registry.declaredTiers('api').keys()]).toEqual(['pro', 'slow']);
  });

  it('lets tiers without their own limit follow an overridden policy limit', () => {
    registerApi();
    expect(registry.applyOverride('api', { limit: 20 })).toBeUndefined();
    expect(registry.getTier('api', 'slow')).toMatchObject({
      limit: 20,
      burst: 20,
      windowMs: 60_000,
    });
    expect(registry.getTier('api', 'pro')).toMatchObject({
      limit: 100,
      burst: 100,
      windowMs: 1_000,
    });
  });

  it("applies a tier's override to that tier alone", () => {
    registerApi();
    const before = registry.get('api');
    expect(registry.applyOverride('api', { tiers: { pro: { limit: 500 } } })).toBeUndefined();
    expect(registry.getTier('api', 'pro')).toMatchObject({ limit: 500, burst: 500 });
    expect(registry.getTier('api', 'slow')).toMatchObject({ limit: 10, windowMs: 60_000 });
    expect(registry.get('api')).toEqual(before);
    expect(registry.override('api')).toEqual({ tiers: { pro: { limit: 500 } } });
  });

  it('tells listeners of a change of a tier alone, once, and of its removal', () => {
    registerApi();
    const policy = registry.get('api')!;
    registry.applyOverride('api', { tiers: { pro: { burst: 7 } } });
    expect(changes).toEqual([['api', policy]]);
    registry.applyOverride('api', { tiers: { pro: { burst: 7 } }, updatedAt: 2 });
    expect(changes).toHaveLength(1);
    registry.applyOverride('api', null);
    expect(changes).toEqual([
      ['api', policy],
      ['api', policy],
    ]);
    expect(registry.getTier('api', 'pro')).toMatchObject({ burst: 100 });
  });

  it('ignores undeclared tiers of an override, telling no one', () => {
    registerApi();
    expect(registry.applyOverride('api', { tiers: { gold: { limit: 1 } } })).toBeUndefined();
    expect(registry.getTier('api', 'gold')).toBeUndefined();
    expect([...registry.tiers('api').keys()]).toEqual(['pro', 'slow']);
    expect(changes).toEqual([]);
  });

  it('refuses a whole override whose tier result is invalid, and returns the problem', () => {
    registerApi({ algo: 'sliding-window' });
    const problem = registry.applyOverride('api', {
      limit: 5,
      tiers: { pro: { limit: 10_001 } },
    });
    expect(problem).toBe(`tier pro: ${SLIDING_PROBLEM}`);
    expect(registry.get('api')!.limit).toBe(10);
    expect(registry.getTier('api', 'pro')!.limit).toBe(100);
    expect(registry.override('api')).toBeNull();
    expect(changes).toEqual([]);
  });

  it("refuses a policy override that would make a declared tier's thresholds invalid", () => {
    registerApi({}, { pro: { limit: 10_001 } });
    expect(registry.applyOverride('api', { algo: 'sliding-window' })).toBe(
      `tier pro: ${SLIDING_PROBLEM}`,
    );
    expect(registry.get('api')!.algo).toBe('fixed-window');
    expect(changes).toEqual([]);
  });

  it("reports the policy's own problem before a tier's", () => {
    registerApi({ algo: 'sliding-window' });
    expect(
      registry.applyOverride('api', { limit: 10_001, tiers: { pro: { limit: 10_001 } } }),
    ).toBe(SLIDING_PROBLEM);
  });

  it('previews the tiers an override would give without applying it', () => {
    registerApi();
    const preview = registry.preview('api', { limit: 3, tiers: { pro: { windowMs: 9 } } })!;
    expect(preview.policy.limit).toBe(3);
    expect(preview.tiers.get('pro')).toMatchObject({ limit: 100, windowMs: 9, tier: 'pro' });
    expect(preview.tiers.get('slow')).toMatchObject({ limit: 3, windowMs: 60_000 });
    expect(registry.get('api')!.limit).toBe(10);
    expect(registry.getTier('api', 'pro')!.windowMs).toBe(1_000);
    expect(registry.preview('nope', null)).toBeUndefined();
    expect(changes).toEqual([]);
  });
});
