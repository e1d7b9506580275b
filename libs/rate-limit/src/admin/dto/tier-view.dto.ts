import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from '../../policy/policy-limits';
import type { TierThresholds, TierView } from '../policy-view.interface';
import { PolicyStatsDto } from './policy-stats.dto';

// Response shapes of the admin API, for Swagger only: handlers return the service's plain objects.

const LIMIT = { type: 'integer', minimum: 1, maximum: MAX_LIMIT, example: 1000 } as const;
const WINDOW_MS = {
  type: 'integer',
  minimum: MIN_WINDOW_MS,
  maximum: MAX_WINDOW_MS,
  example: 60_000,
  description: 'Window in milliseconds.',
} as const;
const BURST = { type: 'integer', minimum: 1, maximum: MAX_LIMIT, example: 2000 } as const;

/** What a tier sets; what it leaves out is the policy's. @publicApi */
export class TierThresholdsDto implements TierThresholds {
  @ApiPropertyOptional(LIMIT)
  limit?: number;

  @ApiPropertyOptional(WINDOW_MS)
  windowMs?: number;

  @ApiPropertyOptional(BURST)
  burst?: number;
}

/** One tier of a policy with its effective thresholds. @publicApi */
export class TierViewDto implements TierView {
  @ApiProperty({ example: 'pro' })
  name!: string;

  @ApiProperty({
    ...LIMIT,
    description: "Effective: the override's, else declared, else the policy's.",
  })
  limit!: number;

  @ApiProperty(WINDOW_MS)
  windowMs!: number;

  @ApiProperty(BURST)
  burst!: number;

  @ApiProperty({ type: TierThresholdsDto, description: 'The values declared in code.' })
  defaults!: TierThresholdsDto;

  // Inline rather than a $ref: OpenAPI 3.0 ignores `nullable` next to a $ref (or an allOf of
  // one), and has no `type: 'null'` for a oneOf.
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: { limit: LIMIT, windowMs: WINDOW_MS, burst: BURST },
    description: "The tier's runtime override, or null when its declared values apply.",
    example: { limit: 5000 },
  })
  override!: TierThresholdsDto | null;

  @ApiProperty({ type: PolicyStatsDto, description: "The tier's share of the policy's stats." })
  stats!: PolicyStatsDto;
}
