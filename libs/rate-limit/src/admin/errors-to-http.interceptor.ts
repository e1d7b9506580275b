import {
  BadRequestException,
  ConflictException,
  GatewayTimeoutException,
  NotFoundException,
  ServiceUnavailableException,
  type CallHandler,
  type ExecutionContext,
  type HttpException,
  type NestInterceptor,
} from '@nestjs/common';
import { catchError, throwError, type Observable } from 'rxjs';
import { AdaptiveUnavailableError } from '../errors/adaptive-unavailable.error';
import { InvalidCursorError } from '../errors/invalid-cursor.error';
import { InvalidIdentityError } from '../errors/invalid-identity.error';
import { InvalidPolicyChangeError } from '../errors/invalid-policy-change.error';
import { NoClientOverrideError } from '../errors/no-client-override.error';
import { RateLimitStoreError } from '../errors/rate-limit-store.error';
import { StoredKeyConflictError } from '../errors/stored-key-conflict.error';
import { UncertainWriteError } from '../errors/uncertain-write.error';
import { UnknownPolicyError } from '../errors/unknown-policy.error';
import { UnknownTierError } from '../errors/unknown-tier.error';

/**
 * The one place the admin API turns the library's errors into HTTP answers; anything else
 * (HTTP errors of guards and pipes, defects) passes as it is.
 */
export function toHttpError(error: unknown): unknown {
  if (error instanceof UnknownPolicyError) return new NotFoundException(error.message);
  if (error instanceof UnknownTierError) return new NotFoundException(error.message);
  if (error instanceof NoClientOverrideError) return new NotFoundException(error.message);
  if (error instanceof InvalidPolicyChangeError) return new BadRequestException(error.problems);
  if (error instanceof InvalidCursorError) return new BadRequestException(error.message);
  if (error instanceof InvalidIdentityError) return new BadRequestException(error.message);
  if (error instanceof StoredKeyConflictError) return new ConflictException(error.message);
  if (error instanceof AdaptiveUnavailableError) return new ConflictException(error.message);
  if (error instanceof UncertainWriteError) return new GatewayTimeoutException(error.message);
  if (error instanceof RateLimitStoreError) {
    return new ServiceUnavailableException(`Redis is unavailable: ${error.message}`);
  }
  return error;
}

/**
 * Answers the library's errors as the admin API does (404, 400, 409, 503, 504): on the admin
 * controller, and on a controller of yours that calls `RateLimitAdminService`.
 * @publicApi
 */
export class RateLimitHttpErrorsInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next
      .handle()
      .pipe(catchError((error: unknown) => throwError(() => toHttpError(error) as HttpException)));
  }
}
