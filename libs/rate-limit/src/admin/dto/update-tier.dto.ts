import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from '../../policy/policy-limits';
import { AgreesWithWindow, IsOptionalNotNull, IsWindow } from './window.validators';

/**
 * Body of `PATCH /admin/policies/:name/tiers/:tier`: the tier's thresholds to change; absent
 * fields keep their value. At least one field is required; unknown fields are rejected. The
 * algorithm, mode and penalty are the policy's: change them on the policy.
 * @publicApi
 */
export class UpdateTierDto {
  @ApiPropertyOptional({
    description: "Units per window for the tier's clients (with the policy's algorithm).",
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    example: 1000,
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    description:
      "The tier's window as a duration ('500ms', '10s', '5m', '1h', '1d') or a number of ms; " +
      'whole milliseconds from 1 ms to 366 days. If `windowMs` is sent too, both must agree.',
    oneOf: [
      { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h|d)\\s*$', example: '1m' },
      { type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_WINDOW_MS, example: 60_000 },
    ],
    example: '1m',
  })
  @IsOptionalNotNull()
  @IsWindow()
  window?: string | number;

  @ApiPropertyOptional({
    description: "The tier's window in milliseconds (alternative to `window`).",
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
    description:
      'Capacity for token-bucket, leaky-bucket and GCRA (ignored by window algorithms); ' +
      "never set, it is the declared one, else the tier's limit.",
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    example: 2000,
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  burst?: number;
}
