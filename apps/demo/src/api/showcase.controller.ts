import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { RateLimit, SkipRateLimit } from '@app/rate-limit';
import { RouteAnswerDto } from './demo-answer.dto';

const ANSWER = ApiOkResponse({ type: RouteAnswerDto, description: 'Admitted' });

/** The other ways to apply limits: stacked policies, an API-key identity, and an exemption. */
@Controller('api')
export class ShowcaseController {
  /** 3 per 10 s per client, and 20 per minute for the whole route: both must admit. */
  @Get('stacked')
  @ANSWER
  @RateLimit({
    name: 'demo.stacked-client',
    algo: 'sliding-window',
    limit: 3,
    window: '10s',
    key: 'ip',
  })
  @RateLimit({
    name: 'demo.stacked-route',
    algo: 'fixed-window',
    limit: 20,
    window: '1m',
    key: 'route',
  })
  stacked() {
    return { route: 'stacked', ok: true };
  }

  /** 5 per 10 s per `X-Api-Key` (per client IP when the header is missing). */
  @Get('keyed')
  @ANSWER
  @RateLimit({
    name: 'demo.api-key',
    algo: 'token-bucket',
    limit: 5,
    window: '10s',
    key: 'api-key',
  })
  keyed() {
    return { route: 'keyed', ok: true };
  }

  @Get('unlimited')
  @ANSWER
  @SkipRateLimit()
  unlimited() {
    return { route: 'unlimited', ok: true };
  }
}
