import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { RateLimitExceededException, type RateLimitExceededBody } from '@app/rate-limit';

/** ThrottlerModule's `errorMessage`: the 429 keeps its body, headers and status. */
@Catch(RateLimitExceededException)
export class TooManyRequestsFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: RateLimitExceededException, host: ArgumentsHost) {
    const body = exception.getResponse() as RateLimitExceededBody;
    const response: unknown = host.switchToHttp().getResponse();
    this.adapterHost.httpAdapter.reply(
      response,
      { ...body, message: 'Too many requests, slow down' },
      exception.getStatus(),
    );
  }
}
