import { applyDecorators, Controller, UseGuards, UseInterceptors, UsePipes } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiParam,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { SkipRateLimit } from '../decorators/skip-rate-limit.decorator';
import { AdminTokenGuard } from './admin-token.guard';
import { AdminErrorResponseDto, AdminTooManyFailuresDto } from './dto/error-response.dto';
import { RateLimitHttpErrorsInterceptor } from './errors-to-http.interceptor';
import { NoSniffGuard } from './no-sniff.guard';
import { createAdminValidationPipe } from './to-policy-patch';

/**
 * What every admin controller is: under `path` (default `policies`; RateLimitAdminModule mounts
 * it under its own `path`), behind the bearer token, validated, with the library's errors as HTTP answers, never
 * rate limited itself (failed token attempts are, by the guard), never sniffed by a browser
 * (`nosniff` on every answer), and documented alike.
 */
export const AdminController = (path = 'policies'): ClassDecorator =>
  applyDecorators(
    ApiTags('rate-limit admin'),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({
      description: 'Missing or wrong bearer token',
      type: AdminErrorResponseDto,
    }),
    ApiTooManyRequestsResponse({
      description: 'Too many failed token attempts from this client; see Retry-After',
      type: AdminTooManyFailuresDto,
    }),
    ApiServiceUnavailableResponse({
      description:
        'Redis is unreachable and nothing was changed (a change written but not announced ' +
        'answers as usual: every instance applies it at its next refresh)',
      type: AdminErrorResponseDto,
    }),
    SkipRateLimit(),
    UseGuards(NoSniffGuard, AdminTokenGuard),
    UsePipes(createAdminValidationPipe()),
    UseInterceptors(RateLimitHttpErrorsInterceptor),
    Controller(path),
  );

export const NAME = ApiParam({ name: 'name', description: 'Policy name', example: 'demo.gcra' });
export const UNKNOWN = ApiNotFoundResponse({
  description: 'No such policy',
  type: AdminErrorResponseDto,
});
export const BAD_INPUT = ApiBadRequestResponse({
  description: 'Invalid input; the message names the field. Nothing is written.',
  type: AdminErrorResponseDto,
});
