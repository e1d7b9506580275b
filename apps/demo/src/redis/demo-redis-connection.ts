import { Logger } from '@nestjs/common';
import type { RedisConnectionOptions } from '@app/rate-limit';
import type { DemoConfig } from '../config/demo-config';
import { isListening, startEmbeddedRedis } from './embedded-redis';

const logger = new Logger('Demo');

/**
 * Chooses the demo's Redis: a cluster, sentinels or REDIS_URL when configured; else a Redis on
 * localhost:6379; else a redis-server the demo starts itself; else the in-memory store.
 */
export async function demoRedisConnection(
  config: DemoConfig,
): Promise<RedisConnectionOptions | undefined> {
  if (config.redisUrl && (config.clusterNodes || config.sentinels)) {
    logger.warn(
      `REDIS_URL is ignored: ${config.clusterNodes ? 'REDIS_CLUSTER_NODES' : 'REDIS_SENTINELS'} is set`,
    );
  }
  if (config.clusterNodes) {
    logger.log(
      `Using the Redis Cluster at ${config.clusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}`,
    );
    return { cluster: config.clusterNodes };
  }
  if (config.sentinels) {
    logger.log(`Using Redis Sentinel (${config.sentinelName})`);
    return { sentinels: config.sentinels, name: config.sentinelName };
  }
  if (config.redisUrl) {
    logger.log(`Using Redis from REDIS_URL`);
    return config.redisUrl;
  }
  if (await isListening('127.0.0.1', 6379)) {
    logger.log('REDIS_URL is not set; using the Redis on localhost:6379');
    return 'redis://127.0.0.1:6379';
  }
  const embedded = await startEmbeddedRedis();
  if (embedded) {
    logger.log(
      `REDIS_URL is not set and nothing listens on localhost:6379; started redis-server at ${embedded.url}`,
    );
    return embedded.url;
  }
  logger.warn('No Redis available: using the in-memory store (limits are per instance)');
  return undefined;
}
