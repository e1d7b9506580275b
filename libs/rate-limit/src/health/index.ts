// nest-redis-rate-limit/health: a Terminus health indicator for the limiter's Redis.
import './peers';

export { RateLimitHealthIndicator, type RedisPingCheckOptions } from './redis-health.indicator';
export { RateLimitHealthModule } from './rate-limit-health.module';
