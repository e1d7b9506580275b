/** Reflect-metadata key of the `@RateLimit()` options list on a class or handler. */
export const RATE_LIMIT_METADATA = 'rate-limit:policies';
/** Reflect-metadata key set by `@SkipRateLimit()`. */
export const SKIP_RATE_LIMIT_METADATA = 'rate-limit:skip';

/** Injection token of the store that decides (Redis, or memory when no Redis is configured). */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
/** Injection token of the validated options with defaults applied. */
export const RATE_LIMIT_CONFIG = Symbol('RATE_LIMIT_CONFIG');

export const DEFAULT_KEY_PREFIX = 'rl';
export const DEFAULT_COMMAND_TIMEOUT_MS = 100;
export const DEFAULT_API_KEY_HEADER = 'x-api-key';
/** Injection token of the policy override store (Redis hashes, or this process only). */
export const RATE_LIMIT_OVERRIDES = Symbol('RATE_LIMIT_OVERRIDES');

export const DEFAULT_POLICY_REFRESH_MS = 5_000;
export const DEFAULT_STATS_FLUSH_MS = 1_000;
