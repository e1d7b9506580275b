import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RateLimitGuard, RateLimitModule } from '@app/rate-limit';
import { AppController } from './app.controller.js';
import { AppService } from './app.service.js';

@Module({
  imports: [RateLimitModule.forRoot({ redis: process.env.REDIS_URL ?? 'redis://localhost:6379' })],
  controllers: [AppController],
  providers: [AppService, { provide: APP_GUARD, useClass: RateLimitGuard }],
})
export class AppModule {}
