import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import {
  adaptiveTierOf,
  isAdaptivePolicy,
  resolveAdaptiveOptions,
  type AdaptiveOptions,
} from './adaptive-options';
import { DEFAULT_PRESSURE_TARGETS } from './pressure';

describe('resolveAdaptiveOptions', () => {
  it('is off by default, with one shed tier for every request and the documented targets', () => {
    expect(resolveAdaptiveOptions(undefined)).toEqual({
      mode: 'off',
      policies: 'opted-in',
      tiers: [{ name: 'default', floor: 0.2 }],
      boostCeiling: 1.5,
      targets: DEFAULT_PRESSURE_TARGETS,
    });
  });

  it('keeps the shedding order, floors and exemptions, and overrides targets one by one', () => {
    const resolved = resolveAdaptiveOptions({
      mode: 'shadow',
      policies: 'all',
      tiers: [{ name: 'free' }, { name: 'pro', floor: 0.5 }, { name: 'enterprise', exempt: true }],
      boostCeiling: 2,
      targets: { elu: 0.9 },
    });
    expect(resolved).toEqual({
      mode: 'shadow',
      policies: 'all',
      tiers: [
        { name: 'free', floor: 0.2 },
        { name: 'pro', floor: 0.5 },
        { name: 'enterprise', floor: 1 },
      ],
      boostCeiling: 2,
      targets: { ...DEFAULT_PRESSURE_TARGETS, elu: 0.9 },
    });
  });

  it.each<[string, unknown, string]>([
    ['an unknown mode', { mode: 'on' }, '"adaptive.mode" must be one of off, shadow, enforce'],
    ['unknown policies', { policies: 'some' }, '"adaptive.policies" must be one of opted-in, all'],
    [
      'a boost above 3x',
      { boostCeiling: 4 },
      '"adaptive.boostCeiling" must be a number from 1 to 3',
    ],
    [
      'a boost below 1',
      { boostCeiling: 0.5 },
      '"adaptive.boostCeiling" must be a number from 1 to 3',
    ],
    ['no tiers', { tiers: [] }, '"adaptive.tiers" must be a non-empty array'],
    [
      'a tier without a name',
      { tiers: [{}] },
      '"adaptive.tiers[0]" must be an object with a tier name',
    ],
    [
      'a prototype name',
      { tiers: [{ name: '__proto__' }] },
      '"adaptive.tiers[0].name" must be 1-64',
    ],
    ['a tier twice', { tiers: [{ name: 'a' }, { name: 'a' }] }, '"adaptive.tiers[1].name" repeats'],
    [
      'a floor above 1',
      { tiers: [{ name: 'a', floor: 1.5 }] },
      '"adaptive.tiers[0].floor" must be',
    ],
    ['a floor that is not a number', { tiers: [{ name: 'a', floor: '0.2' }] }, '.floor" must be'],
    [
      'exempt as a string',
      { tiers: [{ name: 'a', exempt: 'yes' }] },
      '.exempt" must be true or false',
    ],
    ['an unknown signal', { targets: { load1: 2 } }, '"adaptive.targets.load1" is not a signal'],
    ['a zero target', { targets: { elu: 0 } }, '"adaptive.targets.elu" must be a number above 0'],
  ])('refuses %s with a message naming the field', (_, options, message) => {
    const resolve = () => resolveAdaptiveOptions(options as AdaptiveOptions);
    expect(resolve).toThrow(RateLimitConfigError);
    expect(resolve).toThrow(message);
  });
});

describe('isAdaptivePolicy', () => {
  it("follows a policy's own adaptive, else the module's default", () => {
    const optedIn = resolveAdaptiveOptions({ mode: 'enforce' });
    const all = resolveAdaptiveOptions({ mode: 'enforce', policies: 'all' });
    expect(
      [{}, { adaptive: true }, { adaptive: false }].map((p) => isAdaptivePolicy(optedIn, p)),
    ).toEqual([false, true, false]);
    expect(
      [{}, { adaptive: true }, { adaptive: false }].map((p) => isAdaptivePolicy(all, p)),
    ).toEqual([true, true, false]);
  });
});

describe('adaptiveTierOf', () => {
  const tiers = [
    { name: 'default', floor: 0.2 },
    { name: 'free', floor: 0.3 },
  ];

  it('finds a listed tier; a request without a tier is the default tier', () => {
    expect(adaptiveTierOf(tiers, 'free')).toEqual({ name: 'free', floor: 0.3 });
    expect(adaptiveTierOf(tiers, undefined)).toEqual({ name: 'default', floor: 0.2 });
  });

  it('treats a tier the operator did not list as exempt', () => {
    expect(adaptiveTierOf(tiers, 'partner')).toEqual({ name: 'partner', floor: 1 });
  });
});
