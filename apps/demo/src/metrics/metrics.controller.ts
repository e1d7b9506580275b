import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { RateLimitMetrics, SkipRateLimit } from '@app/rate-limit';

/** Prometheus scrape endpoint for the limiter's metrics. */
@ApiExcludeController()
@SkipRateLimit()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: RateLimitMetrics) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
