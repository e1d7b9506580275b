import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import {
  createClientIpResolver,
  type ClientIpResolver,
  type TrustProxy,
} from '../identity/client-ip';
import { isRedisClient } from '../util/ioredis-shapes';
import { KeyBuilder } from '../keys/key-builder';
import { resolveIdentityHashing, type IdentityHashing } from './resolve-identity-hashing';
import type { KeySource } from '../policy/rate-limit-options.interface';
import {
  DEFAULT_API_KEY_HEADER,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_KEY_PREFIX,
  DEFAULT_MEMORY_MAX_KEYS,
  DEFAULT_POLICY_REFRESH_MS,
  DEFAULT_STATS_FLUSH_MS,
} from '../rate-limit.constants';
import {
  HEADER_STYLES,
  ON_REDIS_ERROR,
  type HeaderStyle,
  type OnRedisError,
  type RateLimitModuleOptions,
} from './rate-limit-module-options.interface';

/** Module options validated once at bootstrap, with defaults and derived helpers. */
export interface RateLimitConfig {
  readonly options: RateLimitModuleOptions;
  readonly keys: KeyBuilder;
  readonly key: KeySource;
  readonly onRedisError: OnRedisError;
  /** undefined: 1 / the live instances. */
  readonly fallbackShare: number | undefined;
  readonly commandTimeoutMs: number;
  /** Keys each in-memory store holds at most. */
  readonly memoryMaxKeys: number;
  readonly headers: HeaderStyle;
  readonly unlimitableHandlers: 'fail' | 'warn';
  readonly apiKeyHeader: string;
  readonly clientIp: ClientIpResolver;
  readonly policyRefreshMs: number;
  readonly statsFlushMs: number;
  /** undefined: identities are kept in clear. */
  readonly identityHashing: IdentityHashing | undefined;
}

const WHERE = 'RateLimitModule options';
/** Far above any heap: a larger value is a typo, not a sizing. */
const MAX_MEMORY_KEYS = 1_000_000_000;
const PREFIX = /^[A-Za-z0-9._\-/@]{1,64}$/;

function oneOf<T extends string>(
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

function integerIn(
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

function fraction(field: string, value: number | undefined): number | undefined {
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

function checkRedis(redis: unknown): void {
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

function clientIpResolver(trustProxy: unknown): ClientIpResolver {
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

export function resolveModuleOptions(options: RateLimitModuleOptions = {}): RateLimitConfig {
  checkRedis(options.redis);
  const prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  if (!PREFIX.test(prefix)) {
    throw new RateLimitConfigError(
      WHERE,
      'keyPrefix',
      `must be 1-64 characters of A-Z a-z 0-9 . _ - / @ (got ${JSON.stringify(prefix)})`,
    );
  }
  const timeout = integerIn(
    'commandTimeoutMs',
    options.commandTimeoutMs,
    DEFAULT_COMMAND_TIMEOUT_MS,
    1,
    60_000,
  );
  const policyRefreshMs = integerIn(
    'policyRefreshMs',
    options.policyRefreshMs,
    DEFAULT_POLICY_REFRESH_MS,
    50,
    3_600_000,
  );
  const statsFlushMs = integerIn(
    'statsFlushMs',
    options.statsFlushMs,
    DEFAULT_STATS_FLUSH_MS,
    50,
    60_000,
  );
  for (const field of ['tier', 'skip'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'function') {
      throw new RateLimitConfigError(WHERE, field, 'must be a function of the ExecutionContext');
    }
  }
  const apiKeyHeader = (options.apiKeyHeader ?? DEFAULT_API_KEY_HEADER).toLowerCase();
  const keys = new KeyBuilder(prefix);
  const identityHashing = resolveIdentityHashing(options.identityHashing, keys);
  return {
    options,
    keys,
    identityHashing,
    key: options.key ?? 'ip',
    onRedisError: oneOf('onRedisError', options.onRedisError, ON_REDIS_ERROR, 'memory'),
    fallbackShare: fraction('fallbackShare', options.fallbackShare),
    commandTimeoutMs: timeout,
    memoryMaxKeys: integerIn(
      'memoryMaxKeys',
      options.memoryMaxKeys,
      DEFAULT_MEMORY_MAX_KEYS,
      1,
      MAX_MEMORY_KEYS,
    ),
    headers: oneOf('headers', options.headers, HEADER_STYLES, 'standard'),
    unlimitableHandlers: oneOf(
      'unlimitableHandlers',
      options.unlimitableHandlers,
      ['fail', 'warn'] as const,
      'fail',
    ),
    apiKeyHeader,
    clientIp: clientIpResolver(options.trustProxy),
    policyRefreshMs,
    statsFlushMs,
  };
}
