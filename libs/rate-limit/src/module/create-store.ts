import type { RateLimitConfig } from '../config/resolve-module-options';
import type { RateLimitMetrics } from '../metrics/rate-limit-metrics';
import { MemoryStore } from '../store/memory/memory-store';
import type { RateLimitStore } from '../store/rate-limit-store.interface';
import type { RedisConnection } from '../store/redis/redis-connection';
import { RedisStore } from '../store/redis/redis-store';

/**
 * The store that decides: Redis when a connection is configured, else this process's memory.
 * A new store is a folder under `store/` implementing RateLimitStore, and one line here.
 */
export function createStore(
  config: RateLimitConfig,
  connection: RedisConnection,
  metrics: RateLimitMetrics,
): RateLimitStore {
  const { commandTimeoutMs, memoryMaxKeys } = config;
  if (connection.client) {
    return new RedisStore({ client: connection.client, commandTimeoutMs, observer: metrics });
  }
  return new MemoryStore({ maxKeys: memoryMaxKeys });
}
