import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches, MaxLength } from 'class-validator';
import {
  CLIENT_OVERRIDE_ACTIONS,
  MAX_DENY_MESSAGE_LENGTH,
  WITHOUT_CONTROL_CHARACTERS,
  type ClientOverrideAction,
} from '../../policy/client-override';
import { DenyMessageRules, IsInstant, NotWith } from './client-override.validators';
import {
  CountField,
  DURATION_SCHEMA,
  MS_SCHEMA,
  WindowField,
  WindowMsField,
} from './threshold-fields';
import { IsOptionalNotNull, IsWindow } from './window.validators';

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

  @CountField("`quota` only: units per window; left out, the policy's (or its tier's).", 1000)
  limit?: number;

  @WindowField(
    "`quota` only: the window as a duration ('500ms', '10s', '5m', '1h', '1d') or a number of " +
      'ms, whole milliseconds from 1 ms to 366 days. If `windowMs` is sent too, both must agree.',
    '1m',
    60_000,
  )
  window?: string | number;

  @WindowMsField('`quota` only: the window in milliseconds (alternative to `window`).', 60_000)
  windowMs?: number;

  @CountField(
    '`quota` only: capacity of token-bucket, leaky-bucket and GCRA; left out, the `limit` ' +
      "set here, else the policy's.",
    2000,
  )
  burst?: number;

  @ApiPropertyOptional({
    description:
      "`deny` only: what the client is told; left out, 'Forbidden'. Not blank; no control or " +
      'format characters (such as U+202E), line or paragraph separators.',
    minLength: 1,
    maxLength: MAX_DENY_MESSAGE_LENGTH,
    example: 'Your API key was revoked; contact support',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(MAX_DENY_MESSAGE_LENGTH)
  // It is sent to the client in a response body: no line breaks or terminal escapes.
  @Matches(WITHOUT_CONTROL_CHARACTERS, { message: 'message must not contain control characters' })
  @DenyMessageRules()
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
      { ...DURATION_SCHEMA, example: '1h' },
      { ...MS_SCHEMA, example: 3_600_000 },
    ],
    example: '1h',
  })
  @IsOptionalNotNull()
  @IsWindow()
  @NotWith('expiresAt')
  expiresIn?: string | number;
}
