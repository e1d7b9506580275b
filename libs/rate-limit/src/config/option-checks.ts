import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import {
  createClientIpResolver,
  type ClientIpResolver,
  type TrustProxy,
} from '../identity/client-ip';
import { isRedisClient } from '../util/ioredis-shapes';

/** The checks of single module options; each error names the option and what it must be. */
const WHERE = 'RateLimitModule options';

export function oneOf<T extends string>(
  field: string,
  value: T | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) {
    throw new RateLimitConfigError(
      WHERE,
      field,
      `must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

export function integerIn(
  field: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new RateLimitConfigError(
      WHERE,
      field,
      `must be an integer from ${min} to ${max} (got ${JSON.stringify(n)})`,
    );
  }
  return n;
}

export function fraction(field: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
    throw new RateLimitConfigError(
      WHERE,
      field,
      `must be a number above 0 and at most 1 (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

export function checkRedis(redis: unknown): void {
  if (redis === undefined || isRedisClient(redis)) return;
  if (typeof redis === 'string' && redis.trim() !== '') return;
  const isOptions = typeof redis === 'object' && redis !== null && !Array.isArray(redis);
  if (isOptions && (!('cluster' in redis) || Array.isArray(redis.cluster))) return;
  const got = isOptions
    ? 'a cluster that is not a list of nodes'
    : Array.isArray(redis)
      ? 'an array'
      : JSON.stringify(redis);
  throw new RateLimitConfigError(
    WHERE,
    'redis',
    'must be a URL, ioredis options, { cluster: [nodes], options? }, or an ioredis Redis or ' +
      `Cluster instance (got ${got})`,
  );
}

export function clientIpResolver(trustProxy: unknown): ClientIpResolver {
  const valid =
    trustProxy === undefined ||
    typeof trustProxy === 'boolean' ||
    (typeof trustProxy === 'number' && Number.isInteger(trustProxy) && trustProxy >= 0) ||
    typeof trustProxy === 'string' ||
    (Array.isArray(trustProxy) && trustProxy.every((entry) => typeof entry === 'string')) ||
    typeof trustProxy === 'function';
  try {
    if (valid) return createClientIpResolver(trustProxy as TrustProxy | undefined);
  } catch (error) {
    throw new RateLimitConfigError(WHERE, 'trustProxy', (error as Error).message);
  }
  throw new RateLimitConfigError(
    WHERE,
    'trustProxy',
    `must be a hop count, trusted proxy addresses/subnets, a function (address, hop) => boolean, or true/false (got ${JSON.stringify(trustProxy)})`,
  );
}
