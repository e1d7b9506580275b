export { RateLimitModule } from './module/rate-limit.module';
export type {
  HeaderStyle,
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
