/**
 * Controllers the guard tests declare policies on, each way `@RateLimit()` can be applied. Fixed
 * windows (the default algorithm) get windowWithoutBoundary(): a test's requests never straddle
 * a boundary (an hour-long window ends once an hour, mid-test). The sliding windows of 10 s
 * are not aligned to the clock: they start at a client's first request.
 */
import { Controller, Get, type ExecutionContext } from '@nestjs/common';
import { RateLimit, SkipRateLimit } from '@app/rate-limit';
import { windowWithoutBoundary } from '../../support/window-headroom';

export const WINDOW = windowWithoutBoundary();

const units = (ctx: ExecutionContext): number =>
  Number(ctx.switchToHttp().getRequest<{ query: Record<string, unknown> }>().query.units ?? 1);

@Controller('basic')
export class BasicController {
  @Get('two')
  @RateLimit({ name: 'two-per-10s', algo: 'sliding-window', limit: 2, window: '10s' })
  two() {
    return { ok: true };
  }

  @Get('unlimited')
  unlimited() {
    return { ok: true };
  }

  @Get('stacked')
  @RateLimit({ name: 'stacked-3', limit: 3, window: WINDOW })
  @RateLimit({ name: 'stacked-2', limit: 2, window: WINDOW })
  stacked() {
    return { ok: true };
  }

  @Get('api-key')
  @RateLimit({ name: 'per-api-key', limit: 1, window: WINDOW, key: 'api-key' })
  apiKey() {
    return { ok: true };
  }

  @Get('cost')
  @RateLimit({ name: 'costly', limit: 5, window: WINDOW, cost: units })
  cost() {
    return { ok: true };
  }

  @Get('shadow')
  @RateLimit({ name: 'shadowed', limit: 1, window: WINDOW, mode: 'shadow' })
  shadow() {
    return { ok: true };
  }

  @Get('shadow-and-enforce')
  @RateLimit({ name: 'shadow-1', limit: 1, window: WINDOW, mode: 'shadow' })
  @RateLimit({ name: 'enforce-3', limit: 3, window: WINDOW })
  shadowAndEnforce() {
    return { ok: true };
  }

  @Get('blocked')
  @RateLimit({ name: 'penalty', algo: 'sliding-window', limit: 1, window: '1s', blockFor: '1m' })
  blocked() {
    return { ok: true };
  }
}

@Controller('class')
@RateLimit({ limit: 1, window: WINDOW })
export class ClassLimitedController {
  @Get('a')
  a() {
    return 'a';
  }

  @Get('b')
  b() {
    return 'b';
  }

  @Get('overridden')
  @RateLimit({ limit: 3, window: WINDOW })
  overridden() {
    return 'overridden';
  }

  @Get('skipped')
  @SkipRateLimit()
  skipped() {
    return 'skipped';
  }

  /** Not a route: no policy may be registered for it. */
  format(value: string): string {
    return `<${value}>`;
  }
}

/** A base class with a class-level policy: controllers extending it inherit it. */
@RateLimit({ limit: 1, window: WINDOW })
abstract class LimitedCrudBase {
  @Get('item')
  item() {
    return 'item';
  }
}

@Controller('derived')
export class DerivedController extends LimitedCrudBase {}

@Controller('named')
@RateLimit({ name: 'named-override', limit: 1, window: WINDOW })
export class NamedOverrideController {
  @Get()
  @RateLimit({ name: 'named-override', limit: 3, window: WINDOW })
  handler() {
    return 'named';
  }
}

@Controller('skipped-class')
@SkipRateLimit()
export class SkippedController {
  @Get()
  @RateLimit({ name: 'never-applied', limit: 1, window: WINDOW })
  handler() {
    return 'free';
  }
}

@Controller('defaults')
export class DefaultsController {
  @Get('one')
  one() {
    return 'one';
  }

  @Get('two')
  two() {
    return 'two';
  }

  @Get('own')
  @RateLimit({ limit: 5, window: WINDOW })
  own() {
    return 'own';
  }
}
