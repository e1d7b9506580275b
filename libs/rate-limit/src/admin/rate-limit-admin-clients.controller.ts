import { Body, Delete, Get, HttpCode, HttpStatus, Param, Put, Query } from '@nestjs/common';
import {
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { AdminController, BAD_INPUT, NAME, UNKNOWN } from './admin-api.decorators';
import type { ClientOverrideView, ClientOverrideViewPage } from './client-override-view.interface';
import { ClientOverridesAdmin } from './client-overrides-admin';
import { ClientOverrideViewDto, ClientOverrideViewPageDto } from './dto/client-override-view.dto';
import { AdminErrorResponseDto } from './dto/error-response.dto';
import { ListClientsQueryDto } from './dto/list-clients-query.dto';
import { SetClientOverrideDto } from './dto/set-client-override.dto';
import { toClientOverride } from './to-client-override';

const IDENTITY = ApiParam({
  name: 'identity',
  description:
    'The identity, raw or as the keys listing shows it, URL-encoded. An address in any ' +
    "unambiguous spelling is taken in the limiter's form (`ip:203.0.113.7`, " +
    '`ip:2001:db8:0:0::/64`); an ambiguous one is a 400.',
  example: 'key%3Aacme-prod',
});

/**
 * HTTP face of `ClientOverridesAdmin`: one client's own quota, or always allowed or denied,
 * under one policy. Mounted and guarded as `RateLimitAdminController`.
 */
@AdminController()
export class RateLimitAdminClientsController {
  constructor(private readonly clients: ClientOverridesAdmin) {}

  @Get(':name/clients')
  @ApiOperation({ summary: "The policy's client overrides in force, a page at a time" })
  @NAME
  @ApiOkResponse({ type: ClientOverrideViewPageDto })
  @BAD_INPUT
  @UNKNOWN
  list(
    @Param('name') name: string,
    @Query() query: ListClientsQueryDto,
  ): Promise<ClientOverrideViewPage> {
    return this.clients.list(name, query.cursor, query.count);
  }

  @Get(':name/clients/:identity')
  @ApiOperation({ summary: "One client's override" })
  @NAME
  @IDENTITY
  @ApiOkResponse({ type: ClientOverrideViewDto })
  @BAD_INPUT
  @ApiNotFoundResponse({
    description: 'No such policy, or the client has no override under it',
    type: AdminErrorResponseDto,
  })
  get(
    @Param('name') name: string,
    @Param('identity') identity: string,
  ): Promise<ClientOverrideView> {
    return this.clients.get(name, identity);
  }

  @Put(':name/clients/:identity')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "Set a client's override, on every instance at once",
    description:
      'Replaces any previous override of the client. `quota`: its own limit, window or burst ' +
      "(left out: the policy's or its tier's); `allow`: never limited; `deny`: always " +
      'rejected with `message`. It ends at `expiresAt` (or after `expiresIn`), else when removed.',
  })
  @NAME
  @IDENTITY
  @ApiOkResponse({ type: ClientOverrideViewDto, description: 'The override as stored' })
  @BAD_INPUT
  @UNKNOWN
  set(
    @Param('name') name: string,
    @Param('identity') identity: string,
    @Body() body: SetClientOverrideDto,
  ): Promise<ClientOverrideView> {
    return this.clients.set(name, identity, toClientOverride(body));
  }

  @Delete(':name/clients/:identity')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "Remove a client's override: the policy applies to it again" })
  @NAME
  @IDENTITY
  @ApiNoContentResponse({ description: 'Removed (also when the client had none)' })
  @BAD_INPUT
  @UNKNOWN
  async remove(@Param('name') name: string, @Param('identity') identity: string): Promise<void> {
    await this.clients.remove(name, identity);
  }
}
