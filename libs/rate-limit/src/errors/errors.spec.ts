import * as api from '../index';
import { RateLimitError } from './rate-limit.error';

describe('the error hierarchy', () => {
  const errorClasses = Object.entries(api).filter(
    ([, value]) => typeof value === 'function' && value.prototype instanceof RateLimitError,
  ) as [string, new (...args: never[]) => RateLimitError][];

  it('exports each error the library throws on purpose, all under RateLimitError', () => {
    expect(errorClasses.map(([name]) => name).sort()).toEqual([
      'DuplicatePolicyError',
      'InvalidCostError',
      'InvalidCursorError',
      'InvalidIdentityError',
      'InvalidPolicyChangeError',
      'NoClientOverrideError',
      'RateLimitConfigError',
      'RateLimitStoreError',
      'StoredKeyConflictError',
      'UncertainWriteError',
      'UnknownPolicyError',
      'UnknownTierError',
    ]);
    expect(api.RateLimitError).toBe(RateLimitError);
  });

  it('names each error by its class, in a way a minifier cannot change', () => {
    const samples: RateLimitError[] = [
      new api.UnknownPolicyError('p'),
      new api.UnknownTierError('p', 'gold'),
      new api.NoClientOverrideError('p'),
      new api.InvalidCostError('cost must be an integer'),
      new api.DuplicatePolicyError('p'),
      new api.InvalidCursorError(),
      new api.InvalidIdentityError(),
      new api.InvalidPolicyChangeError(['limit is too high']),
      new api.StoredKeyConflictError('rl:policy:p', 'a hash'),
      new api.UncertainWriteError('Redis did not answer'),
      new api.RateLimitStoreError('timeout', 'Redis did not answer'),
      new api.RateLimitConfigError('Ctrl.handler', 'limit', 'must be positive'),
    ];
    for (const error of samples) {
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(error.constructor.name);
      expect(String(error)).toMatch(new RegExp(`^${error.name}: `));
    }
  });
});
