import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Patch,
  Query,
  UseGuards,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { SkipRateLimit } from '../decorators/skip-rate-limit.decorator';
import { AdminTokenGuard } from './admin-token.guard';
import { AdminErrorResponseDto, AdminTooManyFailuresDto } from './dto/error-response.dto';
import { KeyUsagePageDto } from './dto/key-usage.dto';
import { ListKeysQueryDto } from './dto/list-keys-query.dto';
import { PolicyViewDto } from './dto/policy-view.dto';
import { UpdatePolicyDto } from './dto/update-policy.dto';
import { RateLimitHttpErrorsInterceptor } from './errors-to-http.interceptor';
import type { KeyUsagePage, PolicyView } from './policy-view.interface';
import { RateLimitAdminService } from './rate-limit-admin.service';
import { createAdminValidationPipe, toPolicyPatch } from './to-policy-patch';

const NAME = ApiParam({ name: 'name', description: 'Policy name', example: 'demo.gcra' });
const UNKNOWN = ApiNotFoundResponse({ description: 'No such policy', type: AdminErrorResponseDto });
const BAD_INPUT = ApiBadRequestResponse({
  description: 'Invalid input; the message names the field. Nothing is written.',
  type: AdminErrorResponseDto,
});

/**
 * HTTP face of `RateLimitAdminService`, mounted by `RateLimitAdminModule` under its `path`
 * (default `/admin`). Every route needs `Authorization: Bearer <token>`; failed token attempts are rate
 * limited per client (429), authenticated requests are not.
 */
@ApiTags('rate-limit admin')
@ApiBearerAuth()
@ApiUnauthorizedResponse({
  description: 'Missing or wrong bearer token',
  type: AdminErrorResponseDto,
})
@ApiTooManyRequestsResponse({
  description: 'Too many failed token attempts from this client; see Retry-After',
  type: AdminTooManyFailuresDto,
})
@ApiServiceUnavailableResponse({
  description:
    'Redis is unreachable and nothing was changed (a change written but not announced answers ' +
    'as usual: every instance applies it at its next refresh)',
  type: AdminErrorResponseDto,
})
@SkipRateLimit()
@UseGuards(AdminTokenGuard)
@UsePipes(createAdminValidationPipe())
@UseInterceptors(RateLimitHttpErrorsInterceptor)
@Controller('policies')
export class RateLimitAdminController {
  constructor(private readonly admin: RateLimitAdminService) {}

  @Get()
  @ApiOperation({ summary: 'Every policy with its thresholds, routes, override and stats' })
  @ApiOkResponse({ type: PolicyViewDto, isArray: true })
  list(): Promise<PolicyView[]> {
    return this.admin.list();
  }

  @Get(':name')
  @ApiOperation({ summary: 'One policy' })
  @NAME
  @ApiOkResponse({ type: PolicyViewDto })
  @UNKNOWN
  get(@Param('name') name: string): Promise<PolicyView> {
    return this.admin.get(name);
  }

  @Patch(':name')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Change thresholds at runtime, on every instance',
    description: 'Fields left out keep their value. The change is stored as an override.',
  })
  @NAME
  @ApiOkResponse({ type: PolicyViewDto, description: 'The policy after the change' })
  @BAD_INPUT
  @UNKNOWN
  @ApiConflictResponse({
    description: "The policy's Redis key holds another type than a hash; nothing was changed",
    type: AdminErrorResponseDto,
  })
  update(@Param('name') name: string, @Body() body: UpdatePolicyDto): Promise<PolicyView> {
    return this.admin.update(name, toPolicyPatch(body));
  }

  @Delete(':name/override')
  @ApiOperation({ summary: 'Drop the runtime override: back to the decorator defaults' })
  @NAME
  @ApiOkResponse({ type: PolicyViewDto, description: 'The policy with its defaults' })
  @UNKNOWN
  clearOverride(@Param('name') name: string): Promise<PolicyView> {
    return this.admin.clearOverride(name);
  }

  @Get(':name/keys')
  @ApiOperation({
    summary: 'Live usage per identity, one SCAN page at a time (never blocks Redis)',
  })
  @NAME
  @ApiOkResponse({ type: KeyUsagePageDto })
  @BAD_INPUT
  @UNKNOWN
  keys(@Param('name') name: string, @Query() query: ListKeysQueryDto): Promise<KeyUsagePage> {
    return this.admin.keys(name, query.cursor, query.count);
  }

  @Delete(':name/keys/:identity')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "Reset one identity's usage (unblocks the client)" })
  @NAME
  @ApiParam({
    name: 'identity',
    description: 'The identity as listed by the keys route, URL-encoded',
    example: 'ip%3A203.0.113.7',
  })
  @ApiNoContentResponse({ description: 'Reset (also when the identity had no state)' })
  @UNKNOWN
  async resetKey(@Param('name') name: string, @Param('identity') identity: string): Promise<void> {
    await this.admin.resetKey(name, identity);
  }
}
