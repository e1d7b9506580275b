import { Module, type Provider } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { resolveModuleOptions, type RateLimitConfig } from '../config/resolve-module-options';
import type { RateLimitModuleOptions } from '../config/rate-limit-module-options.interface';
import type { Backend } from '../backends/backend';
import { memoryBackend, memoryStore } from '../backends/memory';
import { redisBackend } from '../backends/redis';
import { ContextRejections } from '../guard/context-rejections';
import { GraphqlRejectionFilter } from '../guard/graphql-rejection.filter';
import { DecisionEngine } from '../engine/decision-engine';
import { FallbackStore } from '../engine/fallback-store';
import { RateLimitGuard } from '../guard/rate-limit.guard';
import { RateLimitMetrics } from '../metrics/rate-limit-metrics';
import {
  DECISION_OBSERVERS,
  RATE_LIMIT_BACKEND,
  RATE_LIMIT_CHANNEL,
  RATE_LIMIT_CLIENT_OVERRIDES,
  RATE_LIMIT_CONFIG,
  RATE_LIMIT_OVERRIDES,
  RATE_LIMIT_STORE,
} from '../rate-limit.constants';
import { PolicyRegistry } from '../registry/policy-registry';
import { RejectedRoutes } from '../registry/rejected-routes';
import { RouteTable } from '../registry/route-table';
import { ClientOverrides } from '../runtime/client-overrides/client-overrides.service';
import { ClientOverridesInUse } from '../runtime/client-overrides/client-overrides-in-use';
import { AdaptiveControls } from '../runtime/adaptive/adaptive-controls.service';
import { AdaptiveLimits } from '../runtime/adaptive/adaptive-limits.service';
import { ADAPTIVE_LOAD_SOURCE } from '../runtime/adaptive/load-source';
import { ChangeTrail } from '../runtime/audit/change-trail';
import { IdentityResets } from '../runtime/identity-resets.service';
import { IdentitySecret } from '../runtime/identity-secret.service';
import { InstanceHeartbeat } from '../runtime/instance-heartbeat.service';
import { PolicySync } from '../runtime/policy-sync.service';
import { RateLimiterService } from '../service/rate-limiter.service';
import { RedisConnection } from '../store/redis/redis-connection';
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
      // One choice of backend; every store and channel comes from it.
      provide: RATE_LIMIT_BACKEND,
      inject: [RATE_LIMIT_CONFIG, RedisConnection, RateLimitMetrics],
      useFactory: (
        config: RateLimitConfig,
        connection: RedisConnection,
        metrics: RateLimitMetrics,
      ) =>
        connection.client
          ? redisBackend(connection.client, config, metrics)
          : memoryBackend(config),
    },
    fromBackend(RATE_LIMIT_STORE, (backend) => backend.store),
    fromBackend(RATE_LIMIT_CHANNEL, (backend) => backend.channel),
    fromBackend(RATE_LIMIT_OVERRIDES, (backend) => backend.policyOverrides),
    fromBackend(RATE_LIMIT_CLIENT_OVERRIDES, (backend) => backend.clientOverrides),
    ClientOverrides,
    ClientOverridesInUse,
    InstanceHeartbeat,
    IdentitySecret,
    {
      provide: FallbackStore,
      inject: [RATE_LIMIT_CONFIG, InstanceHeartbeat],
      useFactory: (config: RateLimitConfig, heartbeat: InstanceHeartbeat) =>
        new FallbackStore(memoryStore(config), heartbeat, config.fallbackShare),
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
    // AdaptiveLimits samples Node unless a test provides scripted signals here.
    { provide: ADAPTIVE_LOAD_SOURCE, useValue: null },
    AdaptiveLimits,
    AdaptiveControls,
    RateLimitGuard,
  ],
  exports: [
    RATE_LIMIT_BACKEND,
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
    AdaptiveLimits,
    AdaptiveControls,
  ],
})
export class RateLimitModule extends RateLimitConfigurableModule {}

function fromBackend<T>(token: symbol, port: (backend: Backend) => T): Provider {
  return { provide: token, inject: [RATE_LIMIT_BACKEND], useFactory: port };
}
