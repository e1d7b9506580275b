/** Reflect-metadata key of the `@RateLimit()` options list on a class or handler. */
export const RATE_LIMIT_METADATA = 'rate-limit:policies';
/** Reflect-metadata key set by `@SkipRateLimit()`. */
export const SKIP_RATE_LIMIT_METADATA = 'rate-limit:skip';

/** Injection token of the store that decides (Redis, or memory when no Redis is configured). */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
/** The backend every store and channel comes from (backends/backend.ts). */
export const RATE_LIMIT_BACKEND = Symbol('RATE_LIMIT_BACKEND');
/** Injection token of the validated options with defaults applied. */
export const RATE_LIMIT_CONFIG = Symbol('RATE_LIMIT_CONFIG');

export const DEFAULT_KEY_PREFIX = 'rl';
export const DEFAULT_COMMAND_TIMEOUT_MS = 100;
export const DEFAULT_API_KEY_HEADER = 'x-api-key';
/** Injection token of the policy override store (Redis hashes, or this process only). */
export const RATE_LIMIT_OVERRIDES = Symbol('RATE_LIMIT_OVERRIDES');
/** Injection token of the list of client overrides (a Redis hash per policy, or this process). */
export const RATE_LIMIT_CLIENT_OVERRIDES = Symbol('RATE_LIMIT_CLIENT_OVERRIDES');
/** Injection token of the channel announcing policy changes and resets to every instance. */
export const RATE_LIMIT_CHANNEL = Symbol('RATE_LIMIT_CHANNEL');
/** Injection token of what is told of every decision (stats, metrics). */
export const DECISION_OBSERVERS = Symbol('DECISION_OBSERVERS');
/** Where the dashboard's traffic series and rejected clients are kept (TrafficStore). */
export const RATE_LIMIT_TRAFFIC = Symbol('RATE_LIMIT_TRAFFIC');
/** Where the audit log is kept (AuditStore). */
export const RATE_LIMIT_AUDIT = Symbol('RATE_LIMIT_AUDIT');

export const DEFAULT_POLICY_REFRESH_MS = 5_000;
export const DEFAULT_STATS_FLUSH_MS = 1_000;

/**
 * Keys tracked by default: about 60 MB of heap with the heaviest common state. Measured with
 * `global.gc()` and `heapUsed` over 200,000 keys: about 400 bytes a key for the O(1) states under
 * an 80-character key, 590 for a 10-entry sliding log under a 140-character key.
 */
export const DEFAULT_MEMORY_MAX_KEYS = 100_000;

/**
 * How long work off the request path may wait on Redis (admin listing and writes, override and
 * stats reads, the identity secret): longer than a request's `commandTimeoutMs`, since nobody's
 * request waits on it, but bounded so that a frozen Redis never hangs an operator.
 */
export const BACKGROUND_TIMEOUT_MS = 2_000;
