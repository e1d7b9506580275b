import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { RateLimitMetrics, SkipRateLimit } from '@app/rate-limit';

/**
 * Prometheus scrape endpoint: the limiter's metrics, plus Node's default process metrics (RSS,
 * heap, event loop lag, GC) that operators and the soak benchmark watch. The process metrics
 * live in a registry of the demo's own, so the limiter's registry keeps exactly the series the
 * library defines (and several apps in one test process do not collide).
 */
@ApiExcludeController()
@SkipRateLimit()
@Controller('metrics')
export class MetricsController {
  private readonly processRegistry = new Registry();

  constructor(private readonly metrics: RateLimitMetrics) {
    collectDefaultMetrics({ register: this.processRegistry });
  }

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    // Merged per scrape (it only lists the metric objects), so a metric the limiter registers
    // later is never missed.
    return Registry.merge([this.metrics.registry, this.processRegistry]).metrics();
  }
}
