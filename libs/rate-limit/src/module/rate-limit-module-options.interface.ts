import type { Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import type { TrustProxy } from '../identity/client-ip';
import type { KeySource, RateLimitOptions } from '../policy/rate-limit-options.interface';

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
export type OnRedisError = 'memory' | 'open' | 'closed';

/** Response header style: `RateLimit-Limit/-Remaining/-Reset`, the IETF draft structured fields, or none. */
export type HeaderStyle = 'standard' | 'ietf-draft' | 'none';

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
  /** Applies to every guarded handler without its own `@RateLimit()`. @default none */
  defaultPolicy?: RateLimitOptions;
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
