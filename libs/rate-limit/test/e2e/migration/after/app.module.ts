import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { RateLimitGuard, RateLimitModule } from '@app/rate-limit';
import { AuthController } from './auth.controller.js';
import { CatsController } from './cats.controller.js';
import { HealthController } from './health.controller.js';
import { ReportsController } from './reports.controller.js';
import { TooManyRequestsFilter } from './too-many-requests.filter.js';

@Module({
  imports: [
    RateLimitModule.forRoot({
      redis: process.env.REDIS_URL ?? 'redis://localhost:6379',
      // Every route without a @RateLimit() of its own: 10 a minute per client IP.
      defaultPolicy: { algo: 'sliding-window', limit: 10, window: '1m' },
    }),
  ],
  controllers: [CatsController, AuthController, ReportsController, HealthController],
  providers: [
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_FILTER, useClass: TooManyRequestsFilter },
  ],
})
export class AppModule {}
