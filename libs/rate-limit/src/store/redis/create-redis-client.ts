import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisConnectionOptions } from '../../config/rate-limit-module-options.interface';
import type { RedisClient } from './redis-script';

/**
 * Client settings for a limiter: a command never waits for a connection (no offline queue) and
 * a command whose outcome is unknown is never resent after a reconnect (it might have counted).
 */
export const LIMITER_CLIENT_DEFAULTS: RedisOptions = {
  enableOfflineQueue: false,
  autoResendUnfulfilledCommands: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 2_000,
  retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 1_000),
};

/**
 * Cluster settings with the same rule: ioredis would otherwise resend a command after a failover
 * or CLUSTERDOWN delay, long after the limiter gave up on it and decided elsewhere (counted
 * twice). Without those retries, a periodic slot refresh finds the promoted replica instead.
 * Masters are connected at start (lazyConnect false above) so the first requests don't wait.
 */
export const LIMITER_CLUSTER_DEFAULTS: ClusterOptions = {
  enableOfflineQueue: false,
  retryDelayOnFailover: 0,
  retryDelayOnClusterDown: 0,
  retryDelayOnTryAgain: 0,
  slotsRefreshInterval: 500,
};

export interface OwnedClient {
  client: RedisClient;
  /** Created here, so closed here; an injected client belongs to the application. */
  owned: boolean;
}

export function createRedisClient(connection: RedisConnectionOptions): OwnedClient {
  if (connection instanceof Redis || connection instanceof Cluster) {
    return { client: connection, owned: false };
  }
  if (typeof connection === 'string') {
    return { client: new Redis(connection, LIMITER_CLIENT_DEFAULTS), owned: true };
  }
  if ('cluster' in connection) {
    const client = new Cluster(connection.cluster, {
      ...LIMITER_CLUSTER_DEFAULTS,
      ...connection.options,
      redisOptions: {
        ...LIMITER_CLIENT_DEFAULTS,
        lazyConnect: false,
        ...connection.options?.redisOptions,
      },
    });
    return { client, owned: true };
  }
  return { client: new Redis({ ...LIMITER_CLIENT_DEFAULTS, ...connection }), owned: true };
}

/** Resolves when the client is ready, or after `timeoutMs` (the limiter then falls back). */
export function waitUntilReady(client: RedisClient, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
  });
}
