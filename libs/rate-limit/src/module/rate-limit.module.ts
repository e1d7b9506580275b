import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RateLimitGuard } from '../guard/rate-limit.guard';
import { RATE_LIMIT_CONFIG, RATE_LIMIT_OVERRIDES, RATE_LIMIT_STORE } from '../rate-limit.constants';
import { MemoryPolicyOverrideStore } from '../runtime/memory-policy-override-store';
import type { PolicyOverrideStore } from '../runtime/policy-override-store';
import { PolicyStats } from '../runtime/policy-stats.service';
import { PolicySync } from '../runtime/policy-sync.service';
import { RedisPolicyOverrideStore } from '../runtime/redis-policy-override-store';
import { PolicyRegistry } from '../registry/policy-registry';
import { RouteTable } from '../registry/route-table';
import { FallbackStore } from '../service/fallback-store';
import { RateLimiterService } from '../service/rate-limiter.service';
import { InstanceHeartbeat } from '../runtime/instance-heartbeat.service';
import { IdentitySecret } from '../runtime/identity-secret.service';
import { MemoryStore } from '../store/memory/memory-store';
import type { RateLimitStore } from '../store/rate-limit-store.interface';
import { RedisConnection } from '../store/redis/redis-connection';
import { RedisStore } from '../store/redis/redis-store';
import { RateLimitMetrics } from '../metrics/rate-limit-metrics';
import { RATE_LIMIT_OPTIONS, RateLimitConfigurableModule } from './rate-limit.module-definition';
import type { RateLimitModuleOptions } from './rate-limit-module-options.interface';
import { resolveModuleOptions, type RateLimitConfig } from './resolve-module-options';

/**
 * Distributed rate limiting. `forRoot(options)` or `forRootAsync({ imports, inject, useFactory })`;
 * global unless `isGlobal: false`.
 * @publicApi
 * @example RateLimitModule.forRoot({ redis: 'redis://localhost:6379' })
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: RATE_LIMIT_CONFIG,
      inject: [RATE_LIMIT_OPTIONS],
      useFactory: (options: RateLimitModuleOptions) => resolveModuleOptions(options),
    },
    {
      provide: RedisConnection,
      inject: [RATE_LIMIT_CONFIG],
      useFactory: (config: RateLimitConfig) => RedisConnection.open(config.options.redis),
    },
    {
      provide: MemoryStore,
      inject: [RATE_LIMIT_CONFIG],
      useFactory: (config: RateLimitConfig) => new MemoryStore({ maxKeys: config.memoryMaxKeys }),
    },
    { provide: RateLimitMetrics, useFactory: () => new RateLimitMetrics() },
    {
      provide: RATE_LIMIT_STORE,
      inject: [RATE_LIMIT_CONFIG, RedisConnection, MemoryStore, RateLimitMetrics],
      useFactory: (
        config: RateLimitConfig,
        connection: RedisConnection,
        memory: MemoryStore,
        metrics: RateLimitMetrics,
      ): RateLimitStore =>
        connection.client
          ? new RedisStore(
              connection.client,
              config.commandTimeoutMs,
              undefined,
              undefined,
              metrics,
            )
          : memory,
    },
    {
      provide: RATE_LIMIT_OVERRIDES,
      inject: [RATE_LIMIT_CONFIG, RedisConnection],
      useFactory: (config: RateLimitConfig, connection: RedisConnection): PolicyOverrideStore =>
        connection.client
          ? new RedisPolicyOverrideStore(connection.client, config.keys.prefix)
          : new MemoryPolicyOverrideStore(),
    },
    InstanceHeartbeat,
    IdentitySecret,
    {
      provide: FallbackStore,
      inject: [RATE_LIMIT_CONFIG, InstanceHeartbeat],
      useFactory: (config: RateLimitConfig, heartbeat: InstanceHeartbeat) =>
        new FallbackStore(
          new MemoryStore({ maxKeys: config.memoryMaxKeys }),
          heartbeat,
          config.fallbackShare,
        ),
    },
    PolicyRegistry,
    RouteTable,
    PolicySync,
    PolicyStats,
    RateLimiterService,
    RateLimitGuard,
  ],
  exports: [
    RateLimitMetrics,
    RateLimiterService,
    RateLimitGuard,
    PolicyRegistry,
    PolicyStats,
    PolicySync,
    RouteTable,
    RATE_LIMIT_CONFIG,
    RATE_LIMIT_STORE,
    RATE_LIMIT_OVERRIDES,
    RedisConnection,
    InstanceHeartbeat,
  ],
})
export class RateLimitModule extends RateLimitConfigurableModule {}
