export { RateLimitModule } from './module/rate-limit.module';
export type {
  HeaderStyle,
  IdentityHashingOptions,
  OnRedisError,
  RateLimitModuleOptions,
  RedisClusterConnection,
  RedisConnectionOptions,
} from './module/rate-limit-module-options.interface';
export { RateLimit } from './decorators/rate-limit.decorator';
export { SkipRateLimit } from './decorators/skip-rate-limit.decorator';
export { RateLimitGuard } from './guard/rate-limit.guard';
export {
  RateLimitExceededException,
  type RateLimitExceededBody,
} from './guard/rate-limit-exceeded.exception';
export {
  RateLimiterService,
  type DecideOptions,
  type PolicyRequest,
} from './service/rate-limiter.service';
export { PolicyRegistry } from './registry/policy-registry';
export type {
  Duration,
  IdentityFunction,
  KeySource,
  RateLimitMode,
  RateLimitOptions,
} from './policy/rate-limit-options.interface';
export type { RateLimitPolicy } from './policy/rate-limit-policy.interface';
export { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from './policy/rate-limit-algorithm';
export { parseDurationMs } from './policy/parse-duration';
export type {
  DecisionSource,
  RateLimitDecision,
  RateLimitReason,
  RateLimitVerdict,
} from './decision/rate-limit-decision.interface';
export { RateLimitConfigError } from './errors/rate-limit-config.error';
export { RateLimitStoreError, type StoreFailure } from './errors/rate-limit-store.error';
export type { TrustProxy } from './identity/client-ip';
export { MemoryStore } from './store/memory/memory-store';
export { RedisStore } from './store/redis/redis-store';
export type {
  RateLimitStore,
  StoreEntry,
  StoreOp,
  StoreOutcome,
  StoreReply,
} from './store/rate-limit-store.interface';
export { RATE_LIMIT_STORE } from './rate-limit.constants';
// Admin API over HTTP and the health indicator
export { RateLimitAdminModule } from './admin/rate-limit-admin.module';
export type {
  RateLimitAdminModuleExtras,
  RateLimitAdminModuleOptions,
} from './admin/rate-limit-admin-options.interface';
export { RateLimitAdminController } from './admin/rate-limit-admin.controller';
export { RateLimitAdminService } from './admin/rate-limit-admin.service';
export { MIN_ADMIN_TOKEN_LENGTH } from './admin/admin-token';
export { FAILED_TOKEN_POLICY } from './admin/failed-token-limiter';
export type {
  KeyUsage,
  KeyUsagePage,
  PolicyOverride,
  PolicyPatch,
  PolicyRoute,
  PolicyStatsView,
  PolicyThresholds,
  PolicyView,
} from './admin/policy-view.interface';
export { UpdatePolicyDto } from './admin/dto/update-policy.dto';
export { ListKeysQueryDto } from './admin/dto/list-keys-query.dto';
export {
  PolicyOverrideDto,
  PolicyRouteDto,
  PolicyStatsDto,
  PolicyThresholdsDto,
  PolicyViewDto,
} from './admin/dto/policy-view.dto';
export { KeyUsageDto, KeyUsagePageDto } from './admin/dto/key-usage.dto';
export {
  RateLimitHealthIndicator,
  type RedisPingCheckOptions,
} from './health/redis-health.indicator';
export { RateLimitHealthModule } from './health/rate-limit-health.module';
export {
  LIMITER_CLIENT_DEFAULTS,
  LIMITER_CLUSTER_DEFAULTS,
} from './store/redis/create-redis-client';
export { RateLimitMetrics } from './metrics/rate-limit-metrics';
