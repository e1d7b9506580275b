import { Controller, Get } from '@nestjs/common';
import { RateLimit } from '@app/rate-limit';

@Controller('reports')
export class ReportsController {
  @Get('export')
  @RateLimit({ limit: 100, window: '1d' }) // fixed-window: resets at 00:00 UTC
  export() {
    return { rows: [] };
  }
}
