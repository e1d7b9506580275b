import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { RateLimitHealthIndicator } from './redis-health.indicator';

/**
 * Provides `RateLimitHealthIndicator`. Import it next to `TerminusModule` (which gives your
 * health controller `HealthCheckService`); the indicator's Redis client comes from the global
 * `RateLimitModule`.
 * @publicApi
 * @example
 * \@Module({ imports: [TerminusModule, RateLimitHealthModule], controllers: [HealthController] })
 */
@Module({
  imports: [TerminusModule],
  providers: [RateLimitHealthIndicator],
  exports: [RateLimitHealthIndicator],
})
export class RateLimitHealthModule {}
