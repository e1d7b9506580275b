import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { MAX_FREEZE_MINUTES } from '../../runtime/adaptive/adaptive-controls.service';

/**
 * Body of `POST /admin/adaptive/freeze`.
 * @publicApi
 */
export class FreezeAdaptiveDto {
  @ApiProperty({
    description: 'How long the fleet loop keeps its level and boost, whole minutes.',
    type: 'integer',
    minimum: 1,
    maximum: MAX_FREEZE_MINUTES,
    example: 30,
  })
  @IsInt()
  @Min(1)
  @Max(MAX_FREEZE_MINUTES)
  minutes!: number;
}

/**
 * One instance's load as its last heartbeat reported it.
 * @publicApi
 */
export class AdaptiveInstanceLoadDto {
  @ApiProperty({ example: 'api-7f9c/4242/1a2b3c4d' })
  id!: string;

  @ApiProperty({ type: 'integer', description: 'When it reported (epoch ms, Redis time).' })
  reportedAt!: number;

  @ApiProperty({ description: 'Its pressure, 1 = at target (0 while warming up).' })
  pressure!: number;

  @ApiProperty({ enum: ['elu', 'eventLoopDelayMs', 'cpu', 'heap', 'tickLatenessMs'] })
  dominant!: string;

  @ApiProperty({ description: 'Requests it decided in the second before.' })
  rps!: number;

  @ApiProperty({ description: 'Share of them its configured limits rejected.' })
  limited!: number;
}

/**
 * Adaptive protection as the answering instance sees it.
 * @publicApi
 */
export class AdaptiveViewDto {
  @ApiProperty({ enum: ['off', 'shadow', 'enforce'] })
  mode!: string;

  @ApiProperty({ description: 'Whether the answering instance runs the fleet loop.' })
  leading!: boolean;

  @ApiPropertyOptional({
    description: 'Until when operators froze the fleet loop (epoch ms, Redis time).',
    type: 'integer',
    nullable: true,
  })
  frozenUntil!: number | null;

  @ApiPropertyOptional({
    description: "The fleet loop's published state: epoch, level, boost, at (Redis time).",
    type: 'object',
    additionalProperties: true,
    nullable: true,
  })
  state!: object | null;

  @ApiProperty({ description: "The answering instance's local loop level (0: sheds nothing)." })
  localLevel!: number;

  @ApiProperty({
    description: 'Effective / configured thresholds by tier on the answering instance.',
    type: 'object',
    additionalProperties: { type: 'number' },
    example: { free: 0.4, pro: 1, enterprise: 1 },
  })
  multipliers!: Record<string, number>;

  @ApiProperty({
    type: AdaptiveInstanceLoadDto,
    isArray: true,
    description: "Every instance's last reported load (empty without Redis, or when off).",
  })
  instances!: AdaptiveInstanceLoadDto[];
}
