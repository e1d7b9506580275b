import { Body, Delete, Get, HttpCode, HttpStatus, Param, Patch, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { AdminController, BAD_INPUT, NAME, UNKNOWN } from './admin-api.decorators';
import { AdminErrorResponseDto } from './dto/error-response.dto';
import { KeyUsagePageDto } from './dto/key-usage.dto';
import { ListKeysQueryDto } from './dto/list-keys-query.dto';
import { PolicyViewDto } from './dto/policy-view.dto';
import { UpdatePolicyDto } from './dto/update-policy.dto';
import { UpdateTierDto } from './dto/update-tier.dto';
import type { KeyUsagePage, PolicyView } from './policy-view.interface';
import { RateLimitAdminService } from './rate-limit-admin.service';
import { toPolicyPatch, toTierPatch } from './to-policy-patch';

const TIER = ApiParam({ name: 'tier', description: 'A tier the policy declares', example: 'pro' });
const UNKNOWN_TIER = ApiNotFoundResponse({
  description: 'No such policy, or the policy declares no such tier',
  type: AdminErrorResponseDto,
});
const CONFLICT = ApiConflictResponse({
  description: "The policy's Redis key holds another type than a hash; nothing was changed",
  type: AdminErrorResponseDto,
});

/**
 * HTTP face of `RateLimitAdminService`, mounted by `RateLimitAdminModule` under its `path`
 * (default `/admin`). Every route needs `Authorization: Bearer <token>`; failed token attempts are rate
 * limited per client (429), authenticated requests are not.
 */
@AdminController()
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
  @CONFLICT
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

  @Patch(':name/tiers/:tier')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "Change a tier's thresholds at runtime, on every instance",
    description:
      "Fields left out keep their value; the algorithm, mode and penalty are the policy's. " +
      "The change is stored with the policy's override.",
  })
  @NAME
  @TIER
  @ApiOkResponse({ type: PolicyViewDto, description: 'The policy after the change' })
  @BAD_INPUT
  @UNKNOWN_TIER
  @CONFLICT
  updateTier(
    @Param('name') name: string,
    @Param('tier') tier: string,
    @Body() body: UpdateTierDto,
  ): Promise<PolicyView> {
    return this.admin.updateTier(name, tier, toTierPatch(body));
  }

  @Delete(':name/tiers/:tier/override')
  @ApiOperation({ summary: "Drop a tier's runtime override: back to its declared thresholds" })
  @NAME
  @TIER
  @ApiOkResponse({ type: PolicyViewDto, description: 'The policy after the change' })
  @UNKNOWN_TIER
  clearTierOverride(@Param('name') name: string, @Param('tier') tier: string): Promise<PolicyView> {
    return this.admin.clearTierOverride(name, tier);
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
    description:
      'The identity as listed by the keys route, or raw, URL-encoded. An address in any ' +
      "unambiguous spelling is taken in the limiter's form; an ambiguous one is a 400.",
    example: 'ip%3A203.0.113.7',
  })
  @ApiNoContentResponse({ description: 'Reset (also when the identity had no state)' })
  @BAD_INPUT
  @UNKNOWN
  async resetKey(@Param('name') name: string, @Param('identity') identity: string): Promise<void> {
    await this.admin.resetKey(name, identity);
  }
}
