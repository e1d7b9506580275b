import { IsBoolean, IsIn } from 'class-validator';
import { CountField, WindowField, WindowMsField } from './threshold-fields';
import { IsOptionalNotNull } from './window.validators';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from '../../policy/rate-limit-algorithm';
import { RATE_LIMIT_MODES, type RateLimitMode } from '../../policy/rate-limit-mode';

/**
 * Body of `PATCH /admin/policies/:name`: the thresholds to change; absent fields keep their
 * value. At least one field is required; unknown fields are rejected.
 * @publicApi
 */
export class UpdatePolicyDto {
  @CountField('Units per window (for buckets and GCRA: the refill or leak rate per window).', 100)
  limit?: number;

  @WindowField(
    "The window as a duration ('500ms', '10s', '5m', '1h', '1d') or a number of ms; " +
      'whole milliseconds from 1 ms to 366 days. If `windowMs` is sent too, both must agree.',
    '10s',
    10_000,
  )
  window?: string | number;

  @WindowMsField('The window in milliseconds (alternative to `window`).', 60_000)
  windowMs?: number;

  @ApiPropertyOptional({
    description: 'The algorithm. Changing it starts every client afresh (state is per algorithm).',
    enum: RATE_LIMIT_ALGORITHMS,
    example: 'sliding-window',
  })
  @IsOptionalNotNull()
  @IsIn(RATE_LIMIT_ALGORITHMS)
  algo?: RateLimitAlgorithm;

  @CountField('Capacity of token-bucket, leaky-bucket and GCRA (ignored by window algorithms).', 20)
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
