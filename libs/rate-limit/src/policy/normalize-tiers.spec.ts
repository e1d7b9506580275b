import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { normalizePolicy } from './normalize-policy';
import { normalizeTiers } from './normalize-tiers';
import { MAX_LIMIT, MAX_SLIDING_WINDOW_LIMIT, MAX_WINDOW_MS } from './policy-limits';
import type { RateLimitOptions } from './rate-limit-options.interface';

const WHERE = 'PlansController.list';

function tiersOf(options: Partial<RateLimitOptions>) {
  const full = { limit: 10, window: '1s', ...options } as RateLimitOptions;
  return normalizeTiers(full, normalizePolicy(full, 'plans', WHERE), WHERE);
}

function rejectionOf(options: Partial<RateLimitOptions>): RateLimitConfigError {
  try {
    tiersOf(options);
  } catch (error) {
    expect(error).toBeInstanceOf(RateLimitConfigError);
    return error as RateLimitConfigError;
  }
  throw new Error(`expected ${JSON.stringify(options)} to be rejected`);
}

/** `tiers` with one tier of this name; an own property even for `__proto__`. */
const oneTier = (name: string, tier: unknown) =>
  Object.fromEntries([[name, tier]]) as RateLimitOptions['tiers'];

const planOf = () => 'pro';

describe('normalizeTiers', () => {
  it('answers no tiers for a policy without them', () => {
    expect(tiersOf({}).size).toBe(0);
  });

  it('answers each tier by name, in declaration order, windows in ms', () => {
    const tiers = tiersOf({
      tiers: {
        pro: { limit: 100, window: '1m', burst: 150 },
        free: { limit: 2 },
        slow: { window: 5_000 },
        bursty: { burst: 30 },
      },
      tier: planOf,
    });
    expect([...tiers]).toEqual([
      ['pro', { limit: 100, windowMs: 60_000, burst: 150 }],
      ['free', { limit: 2 }],
      ['slow', { windowMs: 5_000 }],
      ['bursty', { burst: 30 }],
    ]);
  });

  it.each(['a', 'x'.repeat(64), 'Gold_Plan-2', '0'])('accepts the tier name %p', (name) => {
    expect([...tiersOf({ tiers: oneTier(name, { limit: 5 }) }).keys()]).toEqual([name]);
  });

  it('accepts the bounds of every field', () => {
    const tiers = tiersOf({
      tiers: {
        low: { limit: 1, window: 1, burst: 1 },
        high: { limit: MAX_LIMIT, window: MAX_WINDOW_MS, burst: MAX_LIMIT },
      },
    });
    expect(tiers.get('low')).toEqual({ limit: 1, windowMs: 1, burst: 1 });
    expect(tiers.get('high')).toEqual({
      limit: MAX_LIMIT,
      windowMs: MAX_WINDOW_MS,
      burst: MAX_LIMIT,
    });
  });

  it('accepts a skip function without tiers, calling neither function', () => {
    const skip = jest.fn(() => true);
    const tier = jest.fn(planOf);
    expect(tiersOf({ skip }).size).toBe(0);
    expect(tiersOf({ skip, tier, tiers: { pro: { limit: 5 } } }).size).toBe(1);
    expect(skip).not.toHaveBeenCalled();
    expect(tier).not.toHaveBeenCalled();
  });

  it('accepts a sliding-window tier at 10,000 and any limit for sliding-window-counter', () => {
    const limit = MAX_SLIDING_WINDOW_LIMIT;
    expect(tiersOf({ algo: 'sliding-window', tiers: { pro: { limit } } }).get('pro')).toEqual({
      limit,
    });
    expect(
      tiersOf({ algo: 'sliding-window-counter', tiers: { pro: { limit: MAX_LIMIT } } }).get('pro'),
    ).toEqual({ limit: MAX_LIMIT });
  });

  it.each([
    ['an array', []],
    ['null', null],
    ['a string', 'pro'],
    ['a number', 5],
  ])('rejects tiers given as %s', (_, tiers) => {
    const error = rejectionOf({ tiers: tiers as never });
    expect(error.where).toBe(WHERE);
    expect(error.field).toBe('tiers');
    expect(error.message).toBe(
      `Invalid rate limit options on ${WHERE}: "tiers" must be an object of tier name -> ` +
        '{ limit, window, burst }',
    );
  });

  it.each([
    '',
    'has space',
    'a.b',
    'a:b',
    '{pro}',
    'x'.repeat(65),
    'é',
    '__proto__',
    'constructor',
  ])('rejects the tier name %p, naming it', (name) => {
    const error = rejectionOf({ tiers: oneTier(name, { limit: 5 }) });
    expect(error.field).toBe(`tiers.${name}`);
    expect(error.message).toBe(
      `Invalid rate limit options on ${WHERE}: "tiers.${name}" a tier name must be 1-64 ` +
        `characters of A-Z a-z 0-9 _ - (got ${JSON.stringify(name)})`,
    );
  });

  it.each([[null], [5], ['fast'], [undefined]])('rejects the tier value %p', (tier) => {
    const error = rejectionOf({ tiers: oneTier('pro', tier) });
    expect(error.field).toBe('tiers.pro');
    expect(error.message).toContain('"tiers.pro" must be an object with limit, window or burst');
  });

  it.each([
    [{ limits: 5 }, 'limits'],
    [{ windowMs: 1_000 }, 'windowMs'],
    [{ limit: 5, algo: 'gcra' }, 'algo'],
    [{ limit: 5, blockFor: '1m' }, 'blockFor'],
  ])('rejects the unknown tier field in %j', (tier, unknown) => {
    const error = rejectionOf({ tiers: oneTier('pro', tier) });
    expect(error.field).toBe(`tiers.pro.${unknown}`);
    expect(error.message).toContain('is not a tier option (limit, window, burst)');
  });

  it.each([[{}], [{ limit: undefined }], [{ window: undefined, burst: undefined }]])(
    'rejects the tier %j that sets nothing',
    (tier) => {
      const error = rejectionOf({ tiers: oneTier('pro', tier) });
      expect(error.field).toBe('tiers.pro');
      expect(error.message).toContain('must set at least one of limit, window, burst');
    },
  );

  it.each([
    [{ limit: 0 }, 'limit', '"tiers.pro.limit" must be an integer from 1 to 1000000000 (got 0)'],
    [{ limit: 1.5 }, 'limit', '(got 1.5)'],
    [{ limit: MAX_LIMIT + 1 }, 'limit', '(got 1000000001)'],
    [{ limit: '10' }, 'limit', '(got "10")'],
    [{ burst: -1 }, 'burst', '"tiers.pro.burst" must be an integer from 1 to 1000000000 (got -1)'],
    [{ window: 0 }, 'window', '"tiers.pro.window" must be a whole number of ms from 1 to'],
    [{ window: '10 parsecs' }, 'window', '(got "10 parsecs")'],
    [{ window: MAX_WINDOW_MS + 1 }, 'window', `(got ${MAX_WINDOW_MS + 1})`],
    [{ window: '1.5ms' }, 'window', '"tiers.pro.window"'],
  ])('rejects the tier %j, naming tiers.pro.%s', (tier, field, problem) => {
    const error = rejectionOf({ tiers: oneTier('pro', tier) });
    expect(error.where).toBe(WHERE);
    expect(error.field).toBe(`tiers.pro.${field}`);
    expect(error.message).toContain(problem);
  });

  it('rejects a sliding-window tier above 10,000 as the policy limit would be', () => {
    const error = rejectionOf({
      algo: 'sliding-window',
      tiers: { free: { limit: 5 }, pro: { limit: MAX_SLIDING_WINDOW_LIMIT + 1 } },
    });
    expect(error.field).toBe('tiers.pro.limit');
    expect(error.message).toBe(
      `Invalid rate limit options on ${WHERE}: "tiers.pro.limit" must be at most 10000 with ` +
        `algo 'sliding-window', which keeps one entry per request in the window (got 10001); ` +
        `use 'sliding-window-counter' for larger limits`,
    );
  });

  it.each([
    ['skip', true, ''],
    ['skip', 'yes', ''],
    ['tier', 'pro', " or { header: 'name' }"],
    ['tier', { pro: true }, " or { header: 'name' }"],
    ['tier', { header: '' }, " or { header: 'name' }"],
    ['tier', { header: 'x plan' }, " or { header: 'name' }"],
    ['tier', { header: 7 }, " or { header: 'name' }"],
  ] as const)('rejects a %s that is neither a function nor allowed (%p)', (field, value, or) => {
    const error = rejectionOf({ [field]: value, tiers: { pro: { limit: 5 } } } as never);
    expect(error.field).toBe(field);
    expect(error.message).toBe(
      `Invalid rate limit options on ${WHERE}: "${field}" must be a function of the ExecutionContext${or}`,
    );
  });

  it('takes a tier named by a header', () => {
    expect(() =>
      normalizeTiers(
        { limit: 5, window: '1s', tiers: { pro: { limit: 9 } }, tier: { header: 'X-Plan' } },
        normalizePolicy({ limit: 5, window: '1s' }, 'p', WHERE),
        WHERE,
      ),
    ).not.toThrow();
  });

  it('rejects a tier resolver on a policy that declares no tiers at all', () => {
    const error = rejectionOf({ tier: planOf });
    expect(error.field).toBe('tier');
    expect(error.message).toBe(
      `Invalid rate limit options on ${WHERE}: "tier" is set, but the policy declares no tiers`,
    );
  });

  it('rejects a tier resolver on a policy whose tiers are empty', () => {
    const error = rejectionOf({ tier: planOf, tiers: {} });
    expect(error.field).toBe('tier');
    expect(error.message).toBe(
      `Invalid rate limit options on ${WHERE}: "tier" is set, but the policy declares no tiers`,
    );
  });
});
