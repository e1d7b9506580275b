import { Controller, Get, type ExecutionContext } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { RateLimit } from '@app/rate-limit';
import { RouteAnswerDto } from './demo-answer.dto';

const ANSWER = ApiOkResponse({ type: RouteAnswerDto, description: 'Admitted' });

/**
 * DEMO SHORTCUT, NOT A SAFE SOURCE: the tier comes from a header the client sends, so any
 * client can claim any plan. A real application takes it from what it authenticated (say,
 * `request.user.plan` after its auth guard), never from the request as sent.
 */
function planHeader(context: ExecutionContext): string | undefined {
  const plan = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers[
    'x-plan'
  ];
  return typeof plan === 'string' ? plan : undefined;
}

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
