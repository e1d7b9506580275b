import { BadRequestException, Controller, Get, ParseIntPipe, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { RateLimit, SkipRateLimit, type AdaptiveTierOptions } from '@app/rate-limit';

const MAX_BUSY_MS = 1_000;

/**
 * RATE_LIMIT_ADAPTIVE's tiers, in shedding order: `free` down to a tenth of its thresholds
 * before `pro` is touched, `pro` to 0.3, `enterprise` never (nor a request without a plan).
 */
export const DEMO_ADAPTIVE_TIERS: AdaptiveTierOptions[] = [
  { name: 'free', floor: 0.1 },
  { name: 'pro', floor: 0.3 },
  { name: 'enterprise', exempt: true },
];

function busyFor(ms: number): number {
  if (!Number.isInteger(ms) || ms < 1 || ms > MAX_BUSY_MS) {
    throw new BadRequestException(`ms must be from 1 to ${MAX_BUSY_MS}`);
  }
  const started = performance.now();
  while (performance.now() - started < ms);
  return Math.round(performance.now() - started);
}

/**
 * Only with DEMO_LOAD_TEST_ROUTES=true (the load tests): a route that keeps the event loop busy,
 * as a handler doing CPU work would, to prove that a busy instance is not mistaken for a slow
 * Redis. Never enable it where the public can reach it.
 */
@ApiExcludeController()
@Controller('load-test')
export class LoadTestController {
  @Get('busy')
  @SkipRateLimit()
  busy(@Query('ms', ParseIntPipe) ms: number): { busyMs: number } {
    return { busyMs: busyFor(ms) };
  }

  /**
   * CPU work behind a limit that adaptive protection may scale (RATE_LIMIT_ADAPTIVE): each
   * client (`X-Forwarded-For`, with TRUST_PROXY) gets 25 a second on `free`, 50 on `pro`, 200
   * on `enterprise` (`X-Plan`), so a fleet can be overloaded by clients all within their limits.
 * With RATE_LIMIT_SHED_REJECTIONS the local loop's drops are answered before routing.
   */
  @Get('work')
  @RateLimit({
    name: 'demo.work',
    algo: 'sliding-window-counter',
    limit: 25,
    window: '1s',
    tiers: { pro: { limit: 50 }, enterprise: { limit: 200 } },
    // A header the shedder can read before routing (see plan-header.ts: a demo shortcut).
    tier: { header: 'x-plan' },
    adaptive: true,
  })
  work(@Query('ms', ParseIntPipe) ms: number): { busyMs: number } {
    return { busyMs: busyFor(ms) };
  }
}
