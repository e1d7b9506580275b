import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { RateLimit } from '@app/rate-limit';
import { RouteAnswerDto } from './demo-answer.dto';
import { planHeader } from './plan-header';

const ANSWER = ApiOkResponse({ type: RouteAnswerDto, description: 'Admitted' });

/** Tiers: 5 per 10 s per client on the free plan, more on `pro` and `enterprise` (`X-Plan`). */
@Controller('api')
export class PlansController {
  @Get('plan')
  @ANSWER
  @RateLimit({
    name: 'demo.plan',
    algo: 'fixed-window',
    limit: 5,
    window: '10s',
    key: 'ip',
    tiers: { pro: { limit: 20 }, enterprise: { limit: 50, burst: 100 } },
    tier: planHeader,
  })
  plan() {
    return { route: 'plan', ok: true };
  }
}
