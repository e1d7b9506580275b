import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule, minutes } from '@nestjs/throttler';
import { AuthController } from './auth.controller';
import { CatsController } from './cats.controller';
import { HealthController } from './health.controller';
import { ReportsController } from './reports.controller';

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
