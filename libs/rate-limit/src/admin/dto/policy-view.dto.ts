import { ApiProperty } from '@nestjs/swagger';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from '../../policy/policy-limits';
import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from '../../policy/rate-limit-algorithm';
import type { RateLimitMode } from '../../policy/rate-limit-options.interface';
import type {
  PolicyOverride,
  PolicyRoute,
  PolicyThresholds,
  PolicyView,
} from '../policy-view.interface';
import { RATE_LIMIT_MODES } from '../../policy/rate-limit-mode';
import { PolicyStatsDto } from './policy-stats.dto';
import { TierViewDto } from './tier-view.dto';

// Response shapes of the admin API, for Swagger only: handlers return the service's plain objects.

/** @publicApi */
export class PolicyThresholdsDto implements PolicyThresholds {
  @ApiProperty({ enum: RATE_LIMIT_ALGORITHMS, example: 'sliding-window' })
  algo!: RateLimitAlgorithm;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, example: 5 })
  limit!: number;

  @ApiProperty({
    type: 'integer',
    minimum: MIN_WINDOW_MS,
    maximum: MAX_WINDOW_MS,
    example: 10_000,
    description: 'Window in milliseconds.',
  })
  windowMs!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    example: 5,
    description: 'Capacity of the bucket algorithms and GCRA (equals `limit` unless set).',
  })
  burst!: number;

  @ApiProperty({ enum: RATE_LIMIT_MODES, example: 'enforce' })
  mode!: RateLimitMode;

  @ApiProperty({ example: true })
  enabled!: boolean;
}

/**
 * The policy's own fields set in its Redis hash; absent ones come from the decorator defaults.
 * Each tier's are shown on the tier.
 */
const OVERRIDE_PROPERTIES = {
  algo: { type: 'string', enum: [...RATE_LIMIT_ALGORITHMS], example: 'token-bucket' },
  limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, example: 50 },
  windowMs: { type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_WINDOW_MS, example: 60_000 },
  burst: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, example: 10 },
  mode: { type: 'string', enum: [...RATE_LIMIT_MODES], example: 'shadow' },
  enabled: { type: 'boolean', example: true },
  updatedAt: {
    type: 'integer',
    description: 'When the override was last written, in ms since the Unix epoch.',
    example: 1_767_225_600_000,
  },
} as const;

/** @publicApi */
export class PolicyRouteDto implements PolicyRoute {
  @ApiProperty({ example: 'GET' })
  method!: string;

  @ApiProperty({ example: '/api/sliding-window' })
  path!: string;
}

/** One policy with its effective thresholds (defaults merged with the override). @publicApi */
export class PolicyViewDto extends PolicyThresholdsDto implements PolicyView {
  @ApiProperty({ example: 'demo.sliding-window' })
  name!: string;

  @ApiProperty({ type: [PolicyRouteDto], description: 'Routes this policy limits.' })
  routes!: PolicyRouteDto[];

  @ApiProperty({ type: PolicyThresholdsDto, description: 'The values declared in code.' })
  defaults!: PolicyThresholdsDto;

  // Inline rather than a $ref (as TierViewDto.override): OpenAPI 3.0 has no null type, and
  // `nullable` beside an allOf of a $ref does not admit null, since the $ref's `type: object`
  // still rejects it (Ajv does; generators disagree).
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: OVERRIDE_PROPERTIES,
    description: 'The runtime override from Redis, or null when the defaults apply.',
    example: { limit: 50, updatedAt: 1_767_225_600_000 },
  })
  override!: Omit<PolicyOverride, 'tiers'> | null;

  @ApiProperty({ type: PolicyStatsDto })
  stats!: PolicyStatsDto;

  @ApiProperty({
    type: [TierViewDto],
    description: 'The tiers the code declares, in declaration order; empty when none.',
  })
  tiers!: TierViewDto[];
}
