// The public API: what an application needs to configure, declare, call, catch and operate the
// rate limiter. Stores, the engine, DTOs and injection tokens stay internal.

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
export {
  shedRememberedRejections,
  type ShedRememberedRejectionsOptions,
} from './shedder/shed-remembered-rejections';
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

// Operating: admin API, health, metrics
export { RateLimitAdminModule } from './admin/rate-limit-admin.module';
export type {
  RateLimitAdminModuleExtras,
  RateLimitAdminModuleOptions,
} from './admin/rate-limit-admin-options.interface';
export { RateLimitAdminService } from './admin/rate-limit-admin.service';
export { ClientOverridesAdmin } from './admin/client-overrides-admin';
export type {
  ClientOverrideView,
  ClientOverrideViewPage,
} from './admin/client-override-view.interface';
export { RateLimitHttpErrorsInterceptor } from './admin/errors-to-http.interceptor';
export { MIN_ADMIN_TOKEN_LENGTH } from './admin/admin-token';
export type {
  KeyUsage,
  KeyUsagePage,
  PolicyOverride,
  PolicyPatch,
  PolicyRoute,
  PolicyStatsView,
  PolicyThresholds,
  PolicyView,
  TierPatch,
  TierThresholds,
  TierView,
} from './admin/policy-view.interface';
export {
  RateLimitHealthIndicator,
  type RedisPingCheckOptions,
} from './health/redis-health.indicator';
export { RateLimitHealthModule } from './health/rate-limit-health.module';
export { RateLimitMetrics } from './metrics/rate-limit-metrics';

// Documenting: @RateLimit() routes show their 429 and headers in OpenAPI (with @nestjs/swagger)
export { documentRateLimits, type OpenApiDocumentLike } from './openapi/document-rate-limits';
