import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import {
  CLIENT_OVERRIDE_ACTIONS,
  MAX_DENY_MESSAGE_LENGTH,
  type ClientOverrideAction,
} from '../../policy/client-override';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from '../../policy/policy-limits';
import { IsInstant, NotWith } from './client-override.validators';
import { AgreesWithWindow, IsOptionalNotNull, IsWindow } from './window.validators';

const DURATION = { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h|d)\\s*$' } as const;
const MS = { type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_WINDOW_MS } as const;

/**
 * Body of `PUT /admin/policies/:name/clients/:identity`: the client's whole override (it
 * replaces any previous one). Unknown fields are rejected; which fields go with which action is
 * checked by `ClientOverrides` (400 naming them).
 * @publicApi
 */
export class SetClientOverrideDto {
  @ApiPropertyOptional({
    description:
      "`quota`: the client's own thresholds; `allow`: never limited (still counted); " +
      '`deny`: every request rejected, with `message`.',
    enum: CLIENT_OVERRIDE_ACTIONS,
    default: 'quota',
    example: 'quota',
  })
  @IsOptionalNotNull()
  @IsIn(CLIENT_OVERRIDE_ACTIONS)
  action?: ClientOverrideAction;

  @ApiPropertyOptional({
    description: "`quota` only: units per window; left out, the policy's (or its tier's).",
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
      "`quota` only: the window as a duration ('500ms', '10s', '5m', '1h', '1d') or a number of " +
      'ms, whole milliseconds from 1 ms to 366 days. If `windowMs` is sent too, both must agree.',
    oneOf: [
      { ...DURATION, example: '1m' },
      { ...MS, example: 60_000 },
    ],
    example: '1m',
  })
  @IsOptionalNotNull()
  @IsWindow()
  window?: string | number;

  @ApiPropertyOptional({
    description: '`quota` only: the window in milliseconds (alternative to `window`).',
    ...MS,
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
      '`quota` only: capacity of token-bucket, leaky-bucket and GCRA; left out, the `limit` ' +
      "set here, else the policy's.",
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

  @ApiPropertyOptional({
    description: "`deny` only: what the client is told (default 'Forbidden').",
    maxLength: MAX_DENY_MESSAGE_LENGTH,
    example: 'Your API key was revoked; contact support',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(MAX_DENY_MESSAGE_LENGTH)
  // It is sent to the client in a response body: no line breaks or terminal escapes.
  // eslint-disable-next-line no-control-regex
  @Matches(/^[^\u0000-\u001f\u007f]*$/, { message: 'message must not contain control characters' })
  message?: string;

  @ApiPropertyOptional({
    description:
      'When the override ends by itself: an ISO 8601 date-time with a time zone, or ms since ' +
      'the Unix epoch; in the future, at most 366 days ahead. Left out (and no `expiresIn`): ' +
      'until removed.',
    oneOf: [
      { type: 'string', format: 'date-time', example: '2026-01-01T00:00:00Z' },
      { type: 'integer', minimum: 1, example: 1_767_225_600_000 },
    ],
    example: '2026-01-01T00:00:00Z',
  })
  @IsOptionalNotNull()
  @IsInstant()
  expiresAt?: string | number;

  @ApiPropertyOptional({
    description:
      "How long the override lasts from now, as a duration ('30m', '1h', '7d') or a number of " +
      'ms, at most 366 days (alternative to `expiresAt`).',
    oneOf: [
      { ...DURATION, example: '1h' },
      { ...MS, example: 3_600_000 },
    ],
    example: '1h',
  })
  @IsOptionalNotNull()
  @IsWindow()
  @NotWith('expiresAt')
  expiresIn?: string | number;
}
