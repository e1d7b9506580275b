import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, Max, Min } from 'class-validator';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from '../../policy/policy-limits';
import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from '../../policy/rate-limit-algorithm';
import { RATE_LIMIT_MODES, type RateLimitMode } from '../../policy/rate-limit-mode';
import { AgreesWithWindow, IsOptionalNotNull, IsWindow } from './window.validators';

/**
 * Body of `PATCH /admin/policies/:name`: the thresholds to change; absent fields keep their
 * value. At least one field is required; unknown fields are rejected.
 * @publicApi
 */
export class UpdatePolicyDto {
  @ApiPropertyOptional({
    description: 'Units per window (for buckets and GCRA: the refill or leak rate per window).',
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    example: 100,
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    description:
      "The window as a duration ('500ms', '10s', '5m', '1h', '1d') or a number of ms; " +
      'whole milliseconds from 1 ms to 366 days. If `windowMs` is sent too, both must agree.',
    oneOf: [
      { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h|d)\\s*$', example: '10s' },
      { type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_WINDOW_MS, example: 10_000 },
    ],
    example: '10s',
  })
  @IsOptionalNotNull()
  @IsWindow()
  window?: string | number;

  @ApiPropertyOptional({
    description: 'The window in milliseconds (alternative to `window`).',
    type: 'integer',
    minimum: MIN_WINDOW_MS,
    maximum: MAX_WINDOW_MS,
    example: 60_000,
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(MIN_WINDOW_MS)
  @Max(MAX_WINDOW_MS)
  @AgreesWithWindow()
  windowMs?: number;

  @ApiPropertyOptional({
    description: 'The algorithm. Changing it starts every client afresh (state is per algorithm).',
    enum: RATE_LIMIT_ALGORITHMS,
    example: 'sliding-window',
  })
  @IsOptionalNotNull()
  @IsIn(RATE_LIMIT_ALGORITHMS)
  algo?: RateLimitAlgorithm;

  @ApiPropertyOptional({
    description: 'Capacity of token-bucket, leaky-bucket and GCRA (ignored by window algorithms).',
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    example: 20,
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  burst?: number;

  @ApiPropertyOptional({
    description: '`shadow`: decisions are computed and counted but requests are let through.',
    enum: RATE_LIMIT_MODES,
    example: 'shadow',
  })
  @IsOptionalNotNull()
  @IsIn(RATE_LIMIT_MODES)
  mode?: RateLimitMode;

  @ApiPropertyOptional({
    description: '`false` switches the policy off: its routes are not limited by it.',
    example: true,
  })
  @IsOptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
}
