import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule, minutes } from '@nestjs/throttler';
import { AuthController } from './auth.controller.js';
import { CatsController } from './cats.controller.js';
import { HealthController } from './health.controller.js';
import { ReportsController } from './reports.controller.js';

@Module({
  imports: [
    ThrottlerModule.forRoot({
      throttlers: [{ ttl: minutes(1), limit: 10 }],
      errorMessage: 'Too many requests, slow down',
    }),
  ],
  controllers: [CatsController, AuthController, ReportsController, HealthController],
  providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
})
export class AppModule {}
