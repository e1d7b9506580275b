import {
  HttpException,
  Inject,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { RateLimitExceededException } from '../guard/rate-limit-exceeded.exception';
import { setResponseHeader, type HeaderWriter } from '../guard/set-response-header';
import { ADMIN_TOKEN_DIGEST, sha256 } from './admin-token';
import { FailedTokenLimiter } from './failed-token-limiter';

interface HeaderCarrier {
  headers: Record<string, string | string[] | undefined>;
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Admits a request only with `Authorization: Bearer <token>` carrying the configured token.
 * Digests of equal length are compared with `timingSafeEqual`, so neither the token's content
 * nor its length leaks through timing. The presented token is never logged or echoed. Failed
 * attempts are counted per client; past the limit they answer 429 for a while. A right token
 * always passes: a client behind the same address (a proxy without trustProxy) must not be
 * able to lock the operators out, and a token of 32+ random characters is not guessed by
 * any number of attempts an address can make.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(
    @Inject(ADMIN_TOKEN_DIGEST) private readonly expected: Buffer,
    private readonly failures: FailedTokenLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<HeaderCarrier>();
    const response = http.getResponse<HeaderWriter>();
    const presented = bearerToken(request.headers.authorization);
    if (presented !== undefined && timingSafeEqual(sha256(presented), this.expected)) return true;
    const refused = await this.failures.failed(context);
    if (refused) throw tooManyFailures(response, refused);
    // RFC 6750 section 3: a 401 names the scheme it expects.
    setResponseHeader(response, 'WWW-Authenticate', 'Bearer');
    throw new UnauthorizedException('A valid "Authorization: Bearer <token>" header is required');
  }
}

function tooManyFailures(response: HeaderWriter, refusal: RateLimitDecision): HttpException {
  const seconds = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
  setResponseHeader(response, 'Retry-After', String(seconds));
  return new RateLimitExceededException(
    refusal.policy,
    seconds,
    'Too Many Requests: too many failed admin token attempts',
  );
}

function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  return BEARER.exec(header)?.[1];
}
