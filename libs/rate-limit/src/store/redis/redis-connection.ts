import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { RedisConnectionOptions } from '../../config/rate-limit-module-options.interface';
import { closeClient } from './close-client';
import { createRedisClient, waitUntilReady } from './create-redis-client';
import type { RedisClient } from './redis-script';

const BOOT_WAIT_MS = 2_000;

/** Owns the Redis client for the module's lifetime; absent when the memory store is used. */
export class RedisConnection implements OnApplicationShutdown {
  private static readonly logger = new Logger('RateLimit');

  private constructor(
    readonly client: RedisClient | undefined,
    private readonly owned: boolean,
  ) {}

  static async open(options: RedisConnectionOptions | undefined): Promise<RedisConnection> {
    if (options === undefined) {
      RedisConnection.logger.log('No Redis configured: limits are kept in this process only');
      return new RedisConnection(undefined, false);
    }
    const { client, owned } = createRedisClient(options);
    // Errors surface as failed decisions and the fallback; ioredis would otherwise print them.
    if (owned) client.on('error', () => undefined);
    if (!(await waitUntilReady(client, BOOT_WAIT_MS))) {
      RedisConnection.logger.warn(
        `Redis not ready after ${BOOT_WAIT_MS} ms; decisions fall back until it is`,
      );
    }
    return new RedisConnection(client, owned);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.client || !this.owned) return;
    await closeClient(this.client);
  }
}
