import { Module } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { resolveModuleOptions, type RateLimitConfig } from '../config/resolve-module-options';
import type { RateLimitModuleOptions } from '../config/rate-limit-module-options.interface';
import { ContextRejections } from '../guard/context-rejections';
import { GraphqlRejectionFilter } from '../guard/graphql-rejection.filter';
import { DecisionEngine } from '../engine/decision-engine';
import { FallbackStore } from '../engine/fallback-store';
import { RateLimitGuard } from '../guard/rate-limit.guard';
import { RateLimitMetrics } from '../metrics/rate-limit-metrics';
import {
  DECISION_OBSERVERS,
  RATE_LIMIT_CHANNEL,
  RATE_LIMIT_CLIENT_OVERRIDES,
  RATE_LIMIT_CONFIG,
  RATE_LIMIT_OVERRIDES,
  RATE_LIMIT_STORE,
} from '../rate-limit.constants';
import { PolicyRegistry } from '../registry/policy-registry';
import { RejectedRoutes } from '../registry/rejected-routes';
import { RouteTable } from '../registry/route-table';
import type { ClientOverrideIndex } from '../runtime/client-overrides/client-override-index';
import { ClientOverrides } from '../runtime/client-overrides/client-overrides.service';
import { ClientOverridesInUse } from '../runtime/client-overrides/client-overrides-in-use';
import { MemoryClientOverrideIndex } from '../runtime/client-overrides/memory-client-override-index';
import { RedisClientOverrideIndex } from '../runtime/client-overrides/redis-client-override-index';
import { ChangeTrail } from '../runtime/audit/change-trail';
import { IdentityResets } from '../runtime/identity-resets.service';
import { IdentitySecret } from '../runtime/identity-secret.service';
import { InstanceHeartbeat } from '../runtime/instance-heartbeat.service';
import { MemoryPolicyChannel } from '../runtime/memory-policy-channel';
import { MemoryPolicyOverrideStore } from '../runtime/memory-policy-override-store';
import type { PolicyChannel } from '../runtime/policy-channel';
import type { PolicyOverrideStore } from '../runtime/policy-override-store';
import { PolicySync } from '../runtime/policy-sync.service';
import { RedisPolicyChannel } from '../runtime/redis-policy-channel';
import { RedisPolicyOverrideStore } from '../runtime/redis-policy-override-store';
import { RateLimiterService } from '../service/rate-limiter.service';
import { MemoryStore } from '../store/memory/memory-store';
import { RedisConnection } from '../store/redis/redis-connection';
import { createStore } from './create-store';
import { RATE_LIMIT_OPTIONS, RateLimitConfigurableModule } from './rate-limit.module-definition';

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
    { provide: RateLimitMetrics, useFactory: () => new RateLimitMetrics() },
    {
      provide: RATE_LIMIT_STORE,
      inject: [RATE_LIMIT_CONFIG, RedisConnection, RateLimitMetrics],
      useFactory: createStore,
    },
    {
      provide: RATE_LIMIT_CHANNEL,
      inject: [RATE_LIMIT_CONFIG, RedisConnection],
      useFactory: (config: RateLimitConfig, connection: RedisConnection): PolicyChannel =>
        connection.client
          ? new RedisPolicyChannel(connection.client, config.keys.prefix)
          : new MemoryPolicyChannel(),
    },
    {
      provide: RATE_LIMIT_OVERRIDES,
      inject: [RATE_LIMIT_CONFIG, RedisConnection, RATE_LIMIT_CHANNEL],
      useFactory: (
        config: RateLimitConfig,
        connection: RedisConnection,
        channel: PolicyChannel,
      ): PolicyOverrideStore =>
        connection.client
          ? new RedisPolicyOverrideStore(connection.client, config.keys, channel)
          : new MemoryPolicyOverrideStore(channel),
    },
    {
      provide: RATE_LIMIT_CLIENT_OVERRIDES,
      inject: [RATE_LIMIT_CONFIG, RedisConnection],
      useFactory: (config: RateLimitConfig, connection: RedisConnection): ClientOverrideIndex =>
        connection.client
          ? new RedisClientOverrideIndex(connection.client, config.keys.prefix)
          : new MemoryClientOverrideIndex(),
    },
    ClientOverrides,
    ClientOverridesInUse,
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
    ChangeTrail,
    {
      // The core's own: metrics. The admin plane adds its observers when mounted.
      provide: DECISION_OBSERVERS,
      inject: [RateLimitMetrics],
      useFactory: (metrics: RateLimitMetrics) => [metrics],
    },
    PolicyRegistry,
    RouteTable,
    RejectedRoutes,
    ContextRejections,
    { provide: APP_FILTER, useClass: GraphqlRejectionFilter },
    PolicySync,
    DecisionEngine,
    IdentityResets,
    RateLimiterService,
    RateLimitGuard,
  ],
  exports: [
    RateLimitMetrics,
    RateLimiterService,
    RateLimitGuard,
    DecisionEngine,
    IdentityResets,
    ClientOverrides,
    PolicyRegistry,
    PolicySync,
    RouteTable,
    RejectedRoutes,
    ContextRejections,
    RATE_LIMIT_CONFIG,
    RATE_LIMIT_STORE,
    RATE_LIMIT_OVERRIDES,
    RedisConnection,
    InstanceHeartbeat,
    ChangeTrail,
  ],
})
export class RateLimitModule extends RateLimitConfigurableModule {}
