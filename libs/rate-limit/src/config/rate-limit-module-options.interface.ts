import type { AdaptiveOptions } from '../adaptive/adaptive-options';
import type { Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import type { TrustProxy } from '../identity/client-ip';
import type {
  KeySource,
  RateLimitOptions,
  SkipPredicate,
  TierSource,
} from '../policy/rate-limit-options.interface';

/** Cluster nodes and options for a client the module creates. */
export interface RedisClusterConnection {
  cluster: ClusterNode[];
  options?: ClusterOptions;
}

/**
 * A URL (`redis://`, `rediss://`), ioredis options (including `sentinels` + `name`), cluster
 * nodes, or an existing `Redis` / `Cluster` (used as is and not closed by the module).
 */
export type RedisConnectionOptions =
  string | RedisOptions | RedisClusterConnection | Redis | Cluster;

/** What to do when Redis cannot decide (down, or slower than `commandTimeoutMs`). */
export const ON_REDIS_ERROR = ['memory', 'open', 'closed'] as const;
export type OnRedisError = (typeof ON_REDIS_ERROR)[number];

/** Response header style: `RateLimit-Limit/-Remaining/-Reset`, the IETF draft structured fields, or none. */
export const HEADER_STYLES = ['standard', 'ietf-draft', 'none'] as const;
export type HeaderStyle = (typeof HEADER_STYLES)[number];

/**
 * Options of `RateLimitModule.forRoot()` / `forRootAsync()`.
 * @publicApi
 */
export interface RateLimitModuleOptions {
  /** Where state lives. @default the in-memory store (one instance only) */
  redis?: RedisConnectionOptions;
  /** First segment of every Redis key; no `{`, `}` or whitespace. @default 'rl' */
  keyPrefix?: string;
  /** Default identity of policies that do not set `key`. @default 'ip' */
  key?: KeySource;
  /**
   * Applies to every HTTP route and GraphQL root resolver without its own `@RateLimit()`
   * (gateway and microservice handlers are limited only where declared). @default none
   */
  defaultPolicy?: RateLimitOptions;
  /**
   * A `@RateLimit()` no guard will ever see (on a plain provider method, a class without
   * handlers, a GraphQL field resolver without `fieldResolverEnhancers: ['guards']`) fails the
   * bootstrap naming it; 'warn' logs it instead. @default 'fail'
   */
  unlimitableHandlers?: 'fail' | 'warn';
  /**
   * Which tier a request is in, for every policy that declares `tiers` and no `tier` of its own
   * (say, `(ctx) => ctx.switchToHttp().getRequest().user?.plan`). @default none: the policy's
   * own thresholds
   */
  tier?: TierSource;
  /**
   * Thresholds that follow the fleet's load (SPEC section 15): lowered, lowest tier first, when
   * the instances are overloaded; raised up to a ceiling when load is low and clients are
   * limited. @default { mode: 'off' }
   */
  adaptive?: AdaptiveOptions;
  /**
   * A request for which it answers true is not limited at all (no policy, no headers, not
   * counted): health probes, internal callers. Policies have a `skip` of their own too.
   */
  skip?: SkipPredicate;
  /** Named policies for `RateLimiterService` that no decorator declares. */
  policies?: (RateLimitOptions & { name: string })[];
  /** @default 'memory' */
  onRedisError?: OnRedisError;
  /**
   * With `onRedisError: 'memory'`, the share of each limit (and burst) one instance admits on
   * its own while Redis is unreachable, from 0 (exclusive) to 1. Rounded down, at least 1.
   * @default 1 / the number of instances alive at the last heartbeat before the outage (the
   * shares then add up to the limit; an instance that never reached Redis counts itself alone)
   */
  fallbackShare?: number;
  /**
   * Keys the in-memory store tracks at most (the standalone store, and the fallback while Redis
   * is unreachable): one per identity and policy, plus one per identity under a `blockFor`
   * penalty. Past it, the least recently used key is dropped (that client starts afresh), so
   * rotating identities cannot grow the heap without bound. A key costs about 400 bytes (a
   * sliding-window log: 8 more per request in its window, about 600 with 10).
   * @default 100000 (about 40 to 60 MB)
   */
  memoryMaxKeys?: number;
  /**
   * API keys, user ids, header values and what key functions return are secrets or personal
   * data: Redis keys, logs and the admin API hold a truncated HMAC-SHA-256 of them (the admin
   * API lists `key:sk_l…(hmac:<fingerprint>)`; resets take the raw value or that form). `ip:`
   * and `route:` identities stay readable unless `ips: true`. `false` keeps every identity in
   * clear.
   * @default { } (secret: generated once and kept in Redis at `<prefix>:identity-secret`)
   */
  identityHashing?: IdentityHashingOptions | false;
  /** Longest wait for Redis per decision, in ms. @default 100 */
  commandTimeoutMs?: number;
  /** @default 'standard' */
  headers?: HeaderStyle;
  /**
   * Which proxies' `X-Forwarded-For` to believe, as Express's `trust proxy`: a hop count (1 for
   * one load balancer), addresses/subnets or `'loopback'`, or `(address, hop) => boolean`. `true`
   * believes every hop (any client can pick its own address) and is warned about at start.
   * @default false (the socket address is the client)
   */
  trustProxy?: TrustProxy;
  /** Header read by `key: 'api-key'`. @default 'x-api-key' */
  apiKeyHeader?: string;
  /** How often overrides are re-read from Redis (changes through the admin API apply at once). @default 5000 */
  policyRefreshMs?: number;
  /** How often per-policy decision counts are added to the totals in Redis. @default 1000 */
  statsFlushMs?: number;
}

/**
 * How identities are fingerprinted (module option `identityHashing`).
 * @publicApi
 */
export interface IdentityHashingOptions {
  /**
   * The HMAC key, at least 32 characters, the same on every instance (e.g. from a secret
   * manager, so that it is not in Redis). @default generated by the first instance and kept in
   * Redis at `<prefix>:identity-secret` (in this process only with the in-memory store)
   */
  secret?: string;
  /** Fingerprint `ip:` identities too. @default false (operators need to read addresses) */
  ips?: boolean;
}
