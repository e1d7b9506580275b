import { Body, Delete, Get, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ADAPTIVE_AUDIT_POLICY } from '../runtime/audit/audit-entry';
import { ChangeTrail } from '../runtime/audit/change-trail';
import { AdaptiveControls } from '../runtime/adaptive/adaptive-controls.service';
import { AdminController, BAD_INPUT } from './admin-api.decorators';
import { AdaptiveViewDto, FreezeAdaptiveDto } from './dto/adaptive.dto';
import { AdminErrorResponseDto } from './dto/error-response.dto';

const NOT_HERE = ApiConflictResponse({
  description: 'Adaptive protection is off, or has no Redis to share a fleet loop',
  type: AdminErrorResponseDto,
});

/**
 * Adaptive protection for operators (SPEC section 15): its state on the answering instance,
 * and the fleet loop's freeze, unfreeze and reset, each for the whole fleet within a second and
 * in the audit log.
 */
@AdminController('adaptive')
export class RateLimitAdminAdaptiveController {
  constructor(
    private readonly controls: AdaptiveControls,
    private readonly trail: ChangeTrail,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Adaptive protection on the answering instance: levels, multipliers' })
  @ApiOkResponse({ type: AdaptiveViewDto })
  async view(): Promise<AdaptiveViewDto> {
    const { mode, leading, frozenUntil, state, localLevel, multipliers } =
      this.controls.limits.snapshot;
    return {
      mode,
      leading,
      frozenUntil: frozenUntil ?? null,
      state: state ?? null,
      localLevel,
      multipliers,
      instances: await this.controls.instanceLoads(),
    };
  }

  @Post('freeze')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Hold the fleet loop's level and boost for some minutes, fleet-wide" })
  @ApiOkResponse({ type: AdaptiveViewDto })
  @BAD_INPUT
  @NOT_HERE
  async freeze(@Body() body: FreezeAdaptiveDto): Promise<AdaptiveViewDto> {
    const until = await this.controls.freeze(body.minutes);
    await this.audit('adaptive-freeze', { frozenUntil: until, minutes: body.minutes });
    return { ...(await this.view()), frozenUntil: until };
  }

  @Delete('freeze')
  @ApiOperation({ summary: 'Lift a freeze: the fleet loop moves again at its next beat' })
  @ApiOkResponse({ type: AdaptiveViewDto })
  @NOT_HERE
  async unfreeze(): Promise<AdaptiveViewDto> {
    await this.controls.freeze(null);
    await this.audit('adaptive-freeze', { frozenUntil: null });
    return { ...(await this.view()), frozenUntil: null };
  }

  @Post('reset')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Every tier back to its configured thresholds at the next beat, fleet-wide',
  })
  @ApiOkResponse({ type: AdaptiveViewDto })
  @NOT_HERE
  async reset(): Promise<AdaptiveViewDto> {
    await this.controls.reset();
    await this.audit('adaptive-reset', null);
    return this.view();
  }

  private audit(action: 'adaptive-freeze' | 'adaptive-reset', after: object | null) {
    return this.trail.record({ policy: ADAPTIVE_AUDIT_POLICY, action, after });
  }
}
