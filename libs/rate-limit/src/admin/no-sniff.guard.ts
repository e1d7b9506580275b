import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { setResponseHeader, type HeaderWriter } from '../guard/set-response-header';

/**
 * Sets `X-Content-Type-Options: nosniff` on every answer of the controller it guards, errors
 * included: their JSON can echo what was requested (a file or policy name, an identity), and a
 * browser that sniffed it as HTML would run it. A guard, and the first of the admin's own: the
 * header is then set before the admin's token guard, pipes or handlers can throw.
 */
@Injectable()
export class NoSniffGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const response = context.switchToHttp().getResponse<HeaderWriter>();
    setResponseHeader(response, 'X-Content-Type-Options', 'nosniff');
    return true;
  }
}
