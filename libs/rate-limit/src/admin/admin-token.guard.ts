import {
  Inject,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { ADMIN_TOKEN_DIGEST, sha256 } from './admin-token';

interface HeaderCarrier {
  headers: Record<string, string | string[] | undefined>;
}

interface HeaderSink {
  header?(name: string, value: string): unknown;
  setHeader?(name: string, value: string): unknown;
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Admits a request only with `Authorization: Bearer <token>` carrying the configured token.
 * Digests of equal length are compared with `timingSafeEqual`, so neither the token's content
 * nor its length leaks through timing. The presented token is never logged or echoed.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(@Inject(ADMIN_TOKEN_DIGEST) private readonly expected: Buffer) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const presented = bearerToken(http.getRequest<HeaderCarrier>().headers.authorization);
    if (presented !== undefined && timingSafeEqual(sha256(presented), this.expected)) return true;
    // RFC 6750 section 3: a 401 names the scheme it expects.
    const response = http.getResponse<HeaderSink>();
    if (typeof response.header === 'function') response.header('WWW-Authenticate', 'Bearer');
    else response.setHeader?.('WWW-Authenticate', 'Bearer');
    throw new UnauthorizedException('A valid "Authorization: Bearer <token>" header is required');
  }
}

function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  return BEARER.exec(header)?.[1];
}
