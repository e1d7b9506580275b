import { Controller, Get } from '@nestjs/common';
import { RateLimit } from '@app/rate-limit';
import { AppService } from './app.service.js';

@Controller()
export class AppController {
  constructor(private readonly appService: AppService) {}

  @Get()
  @RateLimit({ algo: 'sliding-window', limit: 5, window: '1m' }) // 5 a minute per client IP
  getHello(): string {
    return this.appService.getHello();
  }
}
