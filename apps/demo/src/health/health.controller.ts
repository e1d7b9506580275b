import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { SkipRateLimit } from '@app/rate-limit';
import { RateLimitHealthIndicator } from '@app/rate-limit/health';

/** Redis reachability and PING latency; 503 when Redis is down (200 on the memory store). */
@ApiTags('health')
@SkipRateLimit()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly rateLimit: RateLimitHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.rateLimit.pingCheck('redis')]);
  }
}
