import { Redis } from 'ioredis';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import type { RateLimitModuleOptions } from './rate-limit-module-options.interface';
import { DEFAULT_MEMORY_MAX_KEYS } from '../rate-limit.constants';
import { resolveModuleOptions } from './resolve-module-options';

/** The error resolveModuleOptions throws for these options (fails the test if none). */
function errorFor(options: unknown): RateLimitConfigError {
  try {
    resolveModuleOptions(options as RateLimitModuleOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(RateLimitConfigError);
    return error as RateLimitConfigError;
  }
  throw new Error(`expected ${JSON.stringify(options)} to be refused`);
}

describe('resolveModuleOptions', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['a number', 6379],
    ['an empty string', ' '],
    ['an array', ['redis://localhost']],
    ['a cluster that is not a list', { cluster: 'localhost:7000' }],
  ])('refuses a redis option that is %s, naming "redis"', (_label, redis) => {
    const error = errorFor({ redis });
    expect(error.field).toBe('redis');
    expect(error.message).toContain('"redis"');
  });

  it('accepts every documented form of the redis option', () => {
    const instance = new Redis({ lazyConnect: true });
    try {
      for (const redis of [
        'redis://localhost:6379',
        { host: 'localhost', port: 6379 },
        { sentinels: [{ host: 'localhost', port: 26379 }], name: 'main' },
        { cluster: [{ host: 'localhost', port: 7000 }] },
        instance,
      ]) {
        expect(() => resolveModuleOptions({ redis } as RateLimitModuleOptions)).not.toThrow();
      }
    } finally {
      instance.disconnect();
    }
  });

  it.each<[string, unknown]>([
    ['zero', 0],
    ['negative', -5],
    ['a fraction', 1.5],
    ['a string', '1000'],
    ['not a number', Number.NaN],
    ['above a billion', 2e9],
  ])('refuses a memoryMaxKeys that is %s, naming "memoryMaxKeys"', (_label, memoryMaxKeys) => {
    const error = errorFor({ memoryMaxKeys });
    expect(error.field).toBe('memoryMaxKeys');
    expect(error.message).toContain('memoryMaxKeys');
  });

  it('caps the memory store at 100,000 keys unless memoryMaxKeys says otherwise', () => {
    expect(resolveModuleOptions({}).memoryMaxKeys).toBe(DEFAULT_MEMORY_MAX_KEYS);
    expect(DEFAULT_MEMORY_MAX_KEYS).toBe(100_000);
    expect(resolveModuleOptions({ memoryMaxKeys: 1 }).memoryMaxKeys).toBe(1);
  });

  it.each<[string, unknown]>([
    ['an address that is not one', 'proxy.example'],
    ['a list with a bad subnet', ['10.0.0.0/99']],
    ['an object', { hops: 1 }],
    ['a negative hop count', -1],
  ])('refuses a trustProxy that is %s, naming "trustProxy"', (_label, trustProxy) => {
    const error = errorFor({ trustProxy });
    expect(error.field).toBe('trustProxy');
  });
});
