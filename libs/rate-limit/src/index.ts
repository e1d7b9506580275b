// nest-redis-rate-limit, the core: what an application needs to configure, declare, call and
// catch the rate limiter, and its metrics. It needs only @nestjs/common, @nestjs/core,
// reflect-metadata, rxjs, and ioredis when Redis is used. The planes are entry points of their
// own: /admin, /health, /openapi, /shedder. Stores, the engine, DTOs and tokens stay internal.

// Configuration
export { RateLimitModule } from './module/rate-limit.module';
export {
  HEADER_STYLES,
  ON_REDIS_ERROR,
  type HeaderStyle,
  type IdentityHashingOptions,
  type OnRedisError,
  type RateLimitModuleOptions,
  type RedisClusterConnection,
  type RedisConnectionOptions,
} from './config/rate-limit-module-options.interface';
export type { TrustProxy } from './identity/client-ip';
export {
  ADAPTIVE_MODES,
  ADAPTIVE_POLICIES,
  type AdaptiveMode,
  type AdaptiveOptions,
  type AdaptivePolicies,
  type AdaptiveTierOptions,
} from './adaptive/adaptive-options';
export {
  LIMITER_CLIENT_DEFAULTS,
  LIMITER_CLUSTER_DEFAULTS,
} from './store/redis/create-redis-client';

// Declaring policies
export { RateLimit } from './decorators/rate-limit.decorator';
export { SkipRateLimit } from './decorators/skip-rate-limit.decorator';
export type {
  Duration,
  IdentityFunction,
  KeySource,
  RateLimitOptions,
  SkipPredicate,
  TierOptions,
  TierResolver,
  TierSource,
} from './policy/rate-limit-options.interface';
export { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from './policy/rate-limit-algorithm';
export { RATE_LIMIT_MODES, type RateLimitMode } from './policy/rate-limit-mode';

// Enforcing and calling
export { RateLimitGuard } from './guard/rate-limit.guard';
export {
  RateLimitExceededException,
  type RateLimitExceededBody,
} from './guard/rate-limit-exceeded.exception';
export type { RateLimitRejection } from './guard/context-rejections';
export { GraphqlRejection } from './guard/graphql-rejection';
export { RateLimiterService, type LimitOptions } from './service/rate-limiter.service';
export { ClientOverrides } from './runtime/client-overrides/client-overrides.service';
export {
  CLIENT_OVERRIDE_ACTIONS,
  type ClientOverride,
  type ClientOverrideAction,
} from './policy/client-override';
export type { ClientOverrideRecord } from './runtime/client-overrides/client-override-index';
export type { PolicyRequest } from './engine/policy-request';
export { PolicyRegistry } from './registry/policy-registry';
export type { RateLimitPolicy } from './policy/rate-limit-policy.interface';
export type {
  DecisionSource,
  RateLimitDecision,
  RateLimitReason,
  RateLimitVerdict,
} from './decision/rate-limit-decision.interface';

// Errors: every one the library throws on purpose is a RateLimitError
export { RateLimitError } from './errors/rate-limit.error';
export { RateLimitConfigError } from './errors/rate-limit-config.error';
export { RateLimitStoreError, type StoreFailure } from './errors/rate-limit-store.error';
export { UnknownPolicyError } from './errors/unknown-policy.error';
export { UnknownTierError } from './errors/unknown-tier.error';
export { NoClientOverrideError } from './errors/no-client-override.error';
export { InvalidCostError } from './errors/invalid-cost.error';
export { DuplicatePolicyError } from './errors/duplicate-policy.error';
export { InvalidCursorError } from './errors/invalid-cursor.error';
export { InvalidIdentityError } from './errors/invalid-identity.error';
export { InvalidPolicyChangeError } from './errors/invalid-policy-change.error';
export { StoredKeyConflictError } from './errors/stored-key-conflict.error';
export { UncertainWriteError } from './errors/uncertain-write.error';

// Operating: metrics (the admin API, health, OpenAPI and the shedder are entry points of their own)
export { RateLimitMetrics } from './metrics/rate-limit-metrics';
