import { HttpException, HttpStatus } from '@nestjs/common';

/** Body of a 429: `{ statusCode: 429, message, policy, retryAfter }`, `retryAfter` in seconds. */
export interface RateLimitExceededBody {
  statusCode: 429;
  message: string;
  policy: string;
  retryAfter: number;
}

/**
 * Thrown by the guard when a request is over its limit.
 * @publicApi
 */
export class RateLimitExceededException extends HttpException {
  constructor(policy: string, retryAfterSeconds: number, message = 'Too Many Requests') {
    const body: RateLimitExceededBody = {
      statusCode: HttpStatus.TOO_MANY_REQUESTS,
      message,
      policy,
      retryAfter: retryAfterSeconds,
    };
    super(body, HttpStatus.TOO_MANY_REQUESTS);
  }
}
