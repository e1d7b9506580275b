import { BadRequestException, Controller, Get, ParseIntPipe, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipRateLimit } from '@app/rate-limit';

const MAX_BUSY_MS = 1_000;

/**
 * Only with DEMO_LOAD_TEST_ROUTES=true (the load tests): a route that keeps the event loop busy,
 * as a handler doing CPU work would, to prove that a busy instance is not mistaken for a slow
 * Redis. Never enable it where the public can reach it.
 */
@ApiExcludeController()
@SkipRateLimit()
@Controller('load-test')
export class LoadTestController {
  @Get('busy')
  busy(@Query('ms', ParseIntPipe) ms: number): { busyMs: number } {
    if (ms < 1 || ms > MAX_BUSY_MS) {
      throw new BadRequestException(`ms must be from 1 to ${MAX_BUSY_MS}`);
    }
    const started = performance.now();
    while (performance.now() - started < ms);
    return { busyMs: Math.round(performance.now() - started) };
  }
}
