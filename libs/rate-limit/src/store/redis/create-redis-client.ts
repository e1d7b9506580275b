import type * as Ioredis from 'ioredis';
import type { ClusterOptions, RedisOptions } from 'ioredis';
import type { RedisConnectionOptions } from '../../config/rate-limit-module-options.interface';
import { isRedisClient } from '../../util/ioredis-shapes';
import { DISCONNECT_WAIT_MS } from './close-client';
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
  disconnectTimeout: DISCONNECT_WAIT_MS,
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
  if (isRedisClient(connection)) return { client: connection, owned: false };
  const { Cluster, Redis } = loadIoredis();
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

/**
 * ioredis, loaded only once a Redis connection is configured: an optional peer, which an
 * application on the memory store alone need not install.
 */
function loadIoredis(): Pick<typeof Ioredis, 'Cluster' | 'Redis'> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
    const ioredis = require('ioredis') as typeof Ioredis & { default?: typeof Ioredis.Redis };
    // ioredis 5.0 exports the client class as the module itself (and `default`), not as `Redis`.
    return { Cluster: ioredis.Cluster, Redis: ioredis.Redis ?? ioredis.default };
  } catch (error) {
    throw new Error(
      'nest-redis-rate-limit: the redis option needs ioredis, which is not installed: ' +
        'npm install ioredis',
      { cause: error },
    );
  }
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
