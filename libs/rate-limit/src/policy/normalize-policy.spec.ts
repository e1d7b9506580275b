import fc from 'fast-check';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { normalizePolicy } from './normalize-policy';
import { MAX_LIMIT, MAX_SLIDING_WINDOW_LIMIT, MAX_WINDOW_MS } from './policy-limits';
import { RATE_LIMIT_ALGORITHMS } from './rate-limit-algorithm';
import type { RateLimitOptions } from './rate-limit-options.interface';

const WHERE = 'UsersController.list';

function rejectionOf(options: Partial<RateLimitOptions>, name = 'users'): RateLimitConfigError {
  try {
    normalizePolicy({ limit: 10, window: '1s', ...options } as RateLimitOptions, name, WHERE);
  } catch (error) {
    expect(error).toBeInstanceOf(RateLimitConfigError);
    return error as RateLimitConfigError;
  }
  throw new Error(`expected ${JSON.stringify(options)} to be rejected`);
}

function expectRejected(options: Partial<RateLimitOptions>, field: string, name?: string): void {
  const error = rejectionOf(options, name);
  expect(error.where).toBe(WHERE);
  expect(error.field).toBe(field);
  expect(error.message).toContain(WHERE);
  expect(error.message).toContain(`"${field}"`);
}

describe('normalizePolicy', () => {
  it('applies the defaults', () => {
    expect(normalizePolicy({ limit: 5, window: '10s' }, 'users', WHERE)).toEqual({
      name: 'users',
      algo: 'fixed-window',
      limit: 5,
      windowMs: 10_000,
      burst: 5,
      blockForMs: 0,
      mode: 'enforce',
      enabled: true,
    });
  });

  it('keeps every explicit option, in milliseconds', () => {
    const policy = normalizePolicy(
      {
        algo: 'token-bucket',
        limit: 5,
        window: '1m',
        burst: 20,
        blockFor: '1h',
        mode: 'shadow',
        cost: 2,
      },
      'login-daily',
      WHERE,
    );
    expect(policy).toEqual({
      name: 'login-daily',
      algo: 'token-bucket',
      limit: 5,
      windowMs: 60_000,
      burst: 20,
      blockForMs: 3_600_000,
      mode: 'shadow',
      enabled: true,
    });
  });

  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    [1, 1],
    [250, 250],
    [MAX_WINDOW_MS, MAX_WINDOW_MS],
    ['366d', MAX_WINDOW_MS],
  ])('accepts the window %p as %d ms', (window, ms) => {
    expect(normalizePolicy({ limit: 1, window }, 'p', WHERE).windowMs).toBe(ms);
  });

  it.each(RATE_LIMIT_ALGORITHMS)('accepts the algorithm %s', (algo) => {
    expect(normalizePolicy({ algo, limit: 1, window: 1 }, 'p', WHERE).algo).toBe(algo);
  });

  it('accepts limit and burst at both bounds', () => {
    expect(normalizePolicy({ limit: 1, burst: 1, window: 1 }, 'p', WHERE)).toMatchObject({
      limit: 1,
      burst: 1,
    });
    expect(
      normalizePolicy({ limit: MAX_LIMIT, burst: MAX_LIMIT, window: 1 }, 'p', WHERE),
    ).toMatchObject({
      limit: 1_000_000_000,
      burst: 1_000_000_000,
    });
  });

  it.each([
    ['10 parsecs'],
    [0],
    [-1],
    [1.5],
    ['0ms'],
    ['0.4ms'],
    [MAX_WINDOW_MS + 1],
    ['367d'],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [undefined],
    [null],
  ])('rejects the window %p, naming the handler and "window"', (window) => {
    expectRejected({ window: window as never }, 'window');
  });

  // The error itself says "must be a whole number of ms"; a fractional '1.5ms' must not be
  // rounded silently to 2 ms (SPEC.md section 3: windowMs is an integer).
  it.each([['1.5ms'], ['0.5ms'], ['1.0001s']])(
    'rejects the fractional-millisecond window %p',
    (window) => {
      expectRejected({ window }, 'window');
    },
  );

  it.each([[0], [-1], [1.5], [MAX_LIMIT + 1], [Number.NaN], ['10'], [undefined]])(
    'rejects the limit %p, naming the handler and "limit"',
    (limit) => {
      expectRejected({ limit: limit as never }, 'limit');
    },
  );

  it.each([[0], [-3], [2.5], [MAX_LIMIT + 1], ['5']])('rejects the burst %p', (burst) => {
    expectRejected({ burst: burst as never }, 'burst');
  });

  it.each([[0], [-1], [0.5], [MAX_LIMIT + 1]])('rejects the numeric cost %p', (cost) => {
    expectRejected({ cost }, 'cost');
  });

  it('accepts a cost function without calling it', () => {
    const cost = jest.fn(() => 3);
    expect(() => normalizePolicy({ limit: 5, window: '1s', cost }, 'p', WHERE)).not.toThrow();
    expect(cost).not.toHaveBeenCalled();
  });

  it.each([['1 parsec'], [0], [-1], [MAX_WINDOW_MS + 1]])('rejects the blockFor %p', (blockFor) => {
    expectRejected({ blockFor: blockFor as never }, 'blockFor');
  });

  it('rejects an unknown algorithm and lists the known ones', () => {
    const error = rejectionOf({ algo: 'leaky-window' as never });
    expect(error.field).toBe('algo');
    expect(error.message).toContain(WHERE);
    expect(error.message).toContain('"algo"');
    expect(error.message).toContain('leaky-window');
    expect(error.message).toContain('sliding-window-counter');
  });

  it.each([['ENFORCE'], ['off'], ['']])('rejects the mode %p', (mode) => {
    expectRejected({ mode: mode as never }, 'mode');
  });

  it.each([['false'], [0], [null]])('rejects the openApi %p', (openApi) => {
    expectRejected({ openApi: openApi as never }, 'openApi');
  });

  it('accepts openApi true or false, which only the OpenAPI document reads', () => {
    const plain = normalizePolicy({ limit: 5, window: '1s' }, 'p', WHERE);
    for (const openApi of [true, false]) {
      expect(normalizePolicy({ limit: 5, window: '1s', openApi }, 'p', WHERE)).toEqual(plain);
    }
  });

  it.each([[''], ['has space'], ['a:b'], ['{tag}'], ['x'.repeat(129)]])(
    'rejects the name %p',
    (name) => {
      expectRejected({}, 'name', name);
    },
  );

  // The whole message, as a developer reads it at bootstrap.
  it.each([
    [{ limit: 0 }, '"limit" must be an integer from 1 to 1000000000 (got 0)'],
    [{ burst: 2.5 }, '"burst" must be an integer from 1 to 1000000000 (got 2.5)'],
    [{ cost: -1 }, '"cost" must be an integer from 1 to 1000000000 (got -1)'],
    [
      { window: '10 parsecs' },
      '"window" must be a whole number of ms from 1 to 31622400000, or a string like ' +
        `'500ms', '10s', '5m', '1h', '1d' (got "10 parsecs")`,
    ],
    [
      { blockFor: 0 },
      '"blockFor" must be a whole number of ms from 1 to 31622400000, or a string like ' +
        `'500ms', '10s', '5m', '1h', '1d' (got 0)`,
    ],
    [
      { algo: 'leaky-window' },
      `"algo" must be one of ${RATE_LIMIT_ALGORITHMS.join(', ')} (got "leaky-window")`,
    ],
    [{ mode: 'off' }, `"mode" must be 'enforce' or 'shadow' (got "off")`],
    [
      { algo: 'sliding-window', limit: 10_001 },
      `"limit" must be at most 10000 with algo 'sliding-window', which keeps one entry per ` +
        `request in the window (got 10001); use 'sliding-window-counter' for larger limits`,
    ],
  ] as [Partial<RateLimitOptions>, string][])('explains %j as: %s', (options, problem) => {
    expect(rejectionOf(options).message).toBe(`Invalid rate limit options on ${WHERE}: ${problem}`);
  });

  it('explains a bad name', () => {
    expect(rejectionOf({}, 'a:b').message).toBe(
      `Invalid rate limit options on ${WHERE}: "name" must be 1-128 characters of ` +
        'A-Z a-z 0-9 . _ - # / @ (got "a:b")',
    );
  });

  it('reports the value it got', () => {
    expect(rejectionOf({ limit: 0 }).message).toContain('(got 0)');
    expect(rejectionOf({ window: '10 parsecs' }).message).toContain('10 parsecs');
  });
});

describe('sliding-window log size (bounded work per request)', () => {
  it('refuses a sliding-window limit above 10,000, pointing to sliding-window-counter', () => {
    const error = rejectionOf({ algo: 'sliding-window', limit: MAX_SLIDING_WINDOW_LIMIT + 1 });
    expect(error.field).toBe('limit');
    expect(error.message).toContain(String(MAX_SLIDING_WINDOW_LIMIT));
    expect(error.message).toContain('sliding-window-counter');
  });

  it('accepts 10,000 for the log, and any limit for the other algorithms', () => {
    expect(
      normalizePolicy(
        { algo: 'sliding-window', limit: MAX_SLIDING_WINDOW_LIMIT, window: 1 },
        'a',
        WHERE,
      ).limit,
    ).toBe(MAX_SLIDING_WINDOW_LIMIT);
    for (const algo of RATE_LIMIT_ALGORITHMS.filter((a) => a !== 'sliding-window')) {
      expect(normalizePolicy({ algo, limit: MAX_LIMIT, window: 1 }, 'a', WHERE).limit).toBe(
        MAX_LIMIT,
      );
    }
  });
});

describe('policy names from any text (property)', () => {
  it('are either rejected at bootstrap or safe inside a Redis key', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (name) => {
        let accepted: string | undefined;
        try {
          accepted = normalizePolicy({ limit: 1, window: 1000 }, name, WHERE).name;
        } catch (error) {
          expect(String(error)).toContain('"name"');
          return;
        }
        expect(accepted).toMatch(/^[A-Za-z0-9._\-#/@]{1,128}$/);
        expect(accepted).not.toMatch(/[{}:*?[\]\s]/);
      }),
      { numRuns: 2_000 },
    );
  });
});
