import { Controller, Get } from '@nestjs/common';
import { Throttle, days } from '@nestjs/throttler';

@Controller('reports')
export class ReportsController {
  @Get('export')
  @Throttle({ default: { limit: 100, ttl: days(1) } })
  export() {
    return { rows: [] };
  }
}
