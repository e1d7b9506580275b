import { resolveAdaptiveOptions, type ResolvedAdaptiveOptions } from '../adaptive/adaptive-options';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { checkSkipAndTier } from '../policy/tier-source';
import type { ClientIpResolver } from '../identity/client-ip';
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
import { checkRedis, clientIpResolver, fraction, integerIn, oneOf } from './option-checks';
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
  readonly adaptive: ResolvedAdaptiveOptions;
}

const WHERE = 'RateLimitModule options';
/** Far above any heap: a larger value is a typo, not a sizing. */
const MAX_MEMORY_KEYS = 1_000_000_000;
const PREFIX = /^[A-Za-z0-9._\-/@]{1,64}$/;

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
  checkSkipAndTier(WHERE, options);
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
    adaptive: resolveAdaptiveOptions(options.adaptive),
  };
}
