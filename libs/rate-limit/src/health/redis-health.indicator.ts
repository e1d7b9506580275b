import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { RedisConnection } from '../store/redis/redis-connection';
import { withTimeout } from '../store/redis/with-timeout';

/** @publicApi */
export interface RedisPingCheckOptions {
  /**
   * Longest wait for the PING reply; beyond it Redis is reported down.
   * @default 500
   */
  timeoutMs?: number;
}

export const DEFAULT_PING_TIMEOUT_MS = 500;

/**
 * Terminus health indicator for the rate limiter's store: PINGs the Redis the limiter decides
 * with and reports the round-trip latency. A failure, a timeout or a client that is not
 * connected is reported as `down` with a message, never thrown. On the memory store (no Redis
 * configured) it reports `up` with `{ store: 'memory' }`.
 *
 * Provided by `RateLimitHealthModule` (which needs the global `RateLimitModule`); apps also
 * import `TerminusModule` for `HealthCheckService`.
 * @publicApi
 * @example
 * \@Get('health') \@HealthCheck()
 * check() { return this.health.check([() => this.rateLimit.pingCheck('redis')]); }
 */
@Injectable()
export class RateLimitHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly connection: RedisConnection,
  ) {}

  async pingCheck<const Key extends string>(
    key: Key,
    options: RedisPingCheckOptions = {},
  ): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.health.check(key);
    const client = this.connection.client;
    if (!client) return indicator.up({ store: 'memory' });
    const timeoutMs = options.timeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
    const started = performance.now();
    try {
      await withTimeout(client.ping(), timeoutMs);
    } catch (error) {
      return indicator.down({
        store: 'redis',
        message: error instanceof Error ? error.message : String(error),
        connection: client.status,
      });
    }
    const latencyMs = Math.round((performance.now() - started) * 100) / 100;
    return indicator.up({ store: 'redis', latencyMs });
  }
}
