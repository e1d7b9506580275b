import { Controller, Get } from '@nestjs/common';
import { SkipRateLimit } from '@app/rate-limit';

@SkipRateLimit()
@Controller('health')
export class HealthController {
  @Get()
  check() {
    return { status: 'ok' };
  }
}
