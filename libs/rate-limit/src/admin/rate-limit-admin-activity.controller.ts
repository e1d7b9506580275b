import { Get, Param, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { InstancesView } from '../runtime/instances/instance-view';
import { AdminController, BAD_INPUT, NAME, UNKNOWN } from './admin-api.decorators';
import { AuditQueryDto, TopRejectedQueryDto, TrafficQueryDto } from './dto/activity-query.dto';
import {
  AuditPageDto,
  InstancesDto,
  PolicyTrafficDto,
  TopRejectedDto,
  TrafficColumnsDto,
  TrafficOverviewDto,
} from './dto/activity-view.dto';
import { RateLimitAdminActivity } from './rate-limit-admin-activity.service';

/**
 * What the dashboard watches: traffic per policy over the last hour, the clients rejected most,
 * the audit log and the live instances. Same token, validation and errors as the other admin
 * routes; reads only.
 */
@AdminController('')
export class RateLimitAdminActivityController {
  constructor(private readonly activity: RateLimitAdminActivity) {}

  @Get('traffic')
  @ApiOperation({
    summary: 'Every policy: decisions per 10 s bucket over the last minutes, on every instance',
  })
  @ApiOkResponse({ type: TrafficOverviewDto })
  // Only a $ref in TrafficOverviewDto names it, and Swagger adds a model when a type does.
  @ApiExtraModels(TrafficColumnsDto)
  @BAD_INPUT
  async overview(@Query() query: TrafficQueryDto): Promise<TrafficOverviewDto> {
    const series = await this.activity.series(query.minutes);
    const { bucketMs, start, end } = series;
    return { bucketMs, start, end, policies: Object.fromEntries(series.policies) };
  }

  @Get('policies/:name/traffic')
  @ApiOperation({ summary: "One policy's decisions per 10 s bucket over the last minutes" })
  @NAME
  @ApiOkResponse({ type: PolicyTrafficDto })
  @BAD_INPUT
  @UNKNOWN
  async policyTraffic(
    @Param('name') name: string,
    @Query() query: TrafficQueryDto,
  ): Promise<PolicyTrafficDto> {
    const series = await this.activity.series(query.minutes, name);
    const { bucketMs, start, end } = series;
    return { bucketMs, start, end, ...series.policies.get(name)! };
  }

  @Get('policies/:name/top-rejected')
  @ApiOperation({
    summary: 'The identities the policy rejected most over the last minutes, on every instance',
    description:
      'Each instance sends its 20 most rejected identities per policy at every stats flush; ' +
      'Redis sums them per minute (the 200 highest kept). Shadow rejections count.',
  })
  @NAME
  @ApiOkResponse({ type: TopRejectedDto })
  @BAD_INPUT
  @UNKNOWN
  async topRejected(
    @Param('name') name: string,
    @Query() query: TopRejectedQueryDto,
  ): Promise<TopRejectedDto> {
    const top = await this.activity.topRejected(name, query.minutes, query.count);
    return {
      minutes: query.minutes,
      items: top.map(([identity, rejected]) => ({ identity, rejected })),
    };
  }

  @Get('audit')
  @ApiOperation({
    summary: 'Threshold changes, resets and client overrides, newest first',
    description:
      "Kept in Redis (the last 1,000). A change written straight into a policy's hash is " +
      "logged with source 'hash' by the first instance whose refresh notices it.",
  })
  @ApiOkResponse({ type: AuditPageDto })
  @BAD_INPUT
  @UNKNOWN
  async auditLog(@Query() query: AuditQueryDto): Promise<AuditPageDto> {
    const items = await this.activity.auditLog(query.policy, query.limit);
    return { items: items as AuditPageDto['items'] };
  }

  @Get('instances')
  @ApiOperation({
    summary: 'The live instances: store, breaker, fallback, version, last flush',
    description: 'When Redis cannot be read, the answering instance alone, with redis "down".',
  })
  @ApiOkResponse({ type: InstancesDto })
  list(): Promise<InstancesView> {
    return this.activity.liveInstances();
  }
}
