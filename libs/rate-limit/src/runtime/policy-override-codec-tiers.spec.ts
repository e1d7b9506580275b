import fc from 'fast-check';
import type { PolicyOverride, TierThresholds } from '../policy/policy-thresholds';
import { MAX_LIMIT, MAX_WINDOW_MS } from '../policy/policy-limits';
import { encodeOverride, parseOverrideHash, tierField } from './policy-override-codec';

describe('tierField', () => {
  it.each([
    ['pro', 'limit', 'tier.pro.limit'],
    ['gold_2', 'windowMs', 'tier.gold_2.windowMs'],
    ['a-b', 'burst', 'tier.a-b.burst'],
  ] as const)('names %s %s as %s', (tier, field, name) => {
    expect(tierField(tier, field)).toBe(name);
  });
});

describe('parseOverrideHash: tier fields', () => {
  it('reads each tier field as a number, grouped by tier', () => {
    const { override, problems } = parseOverrideHash({
      limit: '10',
      'tier.pro.limit': '100',
      'tier.pro.windowMs': '60000',
      'tier.pro.burst': '150',
      'tier.free.burst': '2',
    });
    expect(problems).toEqual([]);
    expect(override).toEqual({
      limit: 10,
      tiers: { pro: { limit: 100, windowMs: 60_000, burst: 150 }, free: { burst: 2 } },
    });
  });

  it('takes a tier field alone as an override, but not updatedAt alone', () => {
    expect(parseOverrideHash({ 'tier.pro.limit': '3', updatedAt: '7' }).override).toEqual({
      tiers: { pro: { limit: 3 } },
      updatedAt: 7,
    });
    expect(parseOverrideHash({ updatedAt: '7' }).override).toBeNull();
  });

  it.each([
    ['limit', '0'],
    ['limit', '-1'],
    ['limit', '1.5'],
    ['limit', 'ten'],
    ['limit', String(MAX_LIMIT + 1)],
    ['limit', ''],
    ['burst', '0'],
    ['burst', ' 5'],
    ['windowMs', '0'],
    ['windowMs', String(MAX_WINDOW_MS + 1)],
    ['windowMs', '1e3'],
  ])('drops tier.pro.%s=%j and reports it, keeping the other fields', (field, raw) => {
    const { override, problems } = parseOverrideHash({
      limit: '7',
      'tier.free.limit': '2',
      [`tier.pro.${field}`]: raw,
    });
    expect(problems).toEqual([`tier.pro.${field}=${JSON.stringify(raw)}`]);
    expect(override).toEqual({ limit: 7, tiers: { free: { limit: 2 } } });
  });

  it("keeps a tier's valid fields next to an invalid one", () => {
    const { override, problems } = parseOverrideHash({
      'tier.pro.limit': '5',
      'tier.pro.burst': 'x',
    });
    expect(override).toEqual({ tiers: { pro: { limit: 5 } } });
    expect(problems).toEqual(['tier.pro.burst="x"']);
  });

  it('gives a hash whose only tier field is invalid no override', () => {
    const { override, problems } = parseOverrideHash({ 'tier.pro.limit': '0' });
    expect(override).toBeNull();
    expect(problems).toEqual(['tier.pro.limit="0"']);
  });

  it.each([
    'tier.pro.algo',
    'tier.pro.mode',
    'tier.pro.window',
    'tier.pro',
    'tier..limit',
    'tier.a.b.limit',
    'tier.a b.limit',
    `tier.${'x'.repeat(65)}.limit`,
    'tiers.pro.limit',
    'TIER.pro.limit',
  ])('reports %s as an unknown field', (field) => {
    const { override, problems } = parseOverrideHash({ limit: '4', [field]: '5' });
    expect(override).toEqual({ limit: 4 });
    expect(problems).toEqual([`${field}="5" (unknown field)`]);
  });

  it.each(['__proto__', 'constructor', 'hasOwnProperty'])(
    'keeps a tier named %s as an own entry, touching no prototype',
    (tier) => {
      const { override, problems } = parseOverrideHash({ [`tier.${tier}.limit`]: '5' });
      expect(problems).toEqual([]);
      expect(Object.getPrototypeOf(override!.tiers)).toBe(Object.prototype);
      expect(Object.hasOwn(override!.tiers!, tier)).toBe(true);
      expect(Object.getOwnPropertyDescriptor(override!.tiers, tier)?.value).toEqual({ limit: 5 });
      expect(({} as Record<string, unknown>).limit).toBeUndefined();
    },
  );
});

describe('encodeOverride: tier fields', () => {
  it("writes each tier's fields as tier.<name>.<field>, and no tiers field", () => {
    expect(
      encodeOverride({
        limit: 10,
        updatedAt: 5,
        tiers: { pro: { limit: 100, windowMs: 60_000 }, free: { burst: 3 } },
      }),
    ).toEqual({
      limit: '10',
      updatedAt: '5',
      'tier.pro.limit': '100',
      'tier.pro.windowMs': '60000',
      'tier.free.burst': '3',
    });
  });

  it('leaves out fields set to undefined and tiers that set nothing', () => {
    expect(encodeOverride({ tiers: { pro: { limit: 100, burst: undefined }, free: {} } })).toEqual({
      'tier.pro.limit': '100',
    });
  });

  it('round-trips an override with tiers through parseOverrideHash', () => {
    const override: PolicyOverride = {
      algo: 'gcra',
      burst: 4,
      enabled: false,
      updatedAt: 9,
      tiers: { pro: { limit: 100, windowMs: 1, burst: 150 }, slow: { windowMs: MAX_WINDOW_MS } },
    };
    expect(parseOverrideHash(encodeOverride(override))).toEqual({ override, problems: [] });
  });

  it('round-trips any valid tiers (property)', () => {
    const count = fc.integer({ min: 1, max: MAX_LIMIT });
    const thresholds: fc.Arbitrary<TierThresholds> = fc.record(
      { limit: count, windowMs: fc.integer({ min: 1, max: MAX_WINDOW_MS }), burst: count },
      { requiredKeys: [] },
    );
    const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
    fc.assert(
      fc.property(fc.dictionary(name, thresholds, { minKeys: 1, maxKeys: 5 }), (tiers) => {
        const set = Object.fromEntries(
          Object.entries(tiers).filter(([, t]) => Object.keys(t).length > 0),
        );
        const override: PolicyOverride = { limit: 1, tiers: set };
        const parsed = parseOverrideHash(encodeOverride(override));
        expect(parsed.problems).toEqual([]);
        expect(parsed.override).toEqual(Object.keys(set).length > 0 ? override : { limit: 1 });
      }),
      { numRuns: 300 },
    );
  });
});
