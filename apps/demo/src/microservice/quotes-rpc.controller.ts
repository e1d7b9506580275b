import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RateLimit } from '@app/rate-limit';

interface QuoteRequest {
  tenant?: string;
}

/**
 * A microservice handler (TCP on the demo): messages carry no client address, so the identity
 * is a function of the payload, here its tenant. 4 per 10 s per tenant.
 */
@Controller()
export class QuotesRpcController {
  @MessagePattern('quote')
  @RateLimit({
    name: 'demo.rpc-quote',
    algo: 'sliding-window-counter',
    limit: 4,
    window: '10s',
    key: (ctx) => String(ctx.switchToRpc().getData<QuoteRequest>()?.tenant ?? 'anonymous'),
  })
  quote(@Payload() request: QuoteRequest): { tenant: string | undefined; text: string } {
    return { tenant: request?.tenant, text: 'Less, but better.' };
  }
}
