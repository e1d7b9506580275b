import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  CLIENT_OVERRIDE_ACTIONS,
  MAX_DENY_MESSAGE_LENGTH,
  type ClientOverrideAction,
} from '../../policy/client-override';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from '../../policy/policy-limits';
import type { ClientOverrideView, ClientOverrideViewPage } from '../client-override-view.interface';

// Response shapes of the admin API, for Swagger only: handlers return the service's plain objects.

/** One client's override under a policy. @publicApi */
export class ClientOverrideViewDto implements ClientOverrideView {
  @ApiProperty({
    description:
      'Who it applies to, as the keys listing shows identities; pass it URL-encoded to the ' +
      'routes of this client.',
    example: 'key:acme-prod',
  })
  identity!: string;

  @ApiProperty({ enum: CLIENT_OVERRIDE_ACTIONS, example: 'quota' })
  action!: ClientOverrideAction;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, example: 1000 })
  limit?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_WINDOW_MS,
    maximum: MAX_WINDOW_MS,
    example: 60_000,
    description: 'Window in milliseconds.',
  })
  windowMs?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, example: 2000 })
  burst?: number;

  @ApiPropertyOptional({
    maxLength: MAX_DENY_MESSAGE_LENGTH,
    description: '`deny` only: what the client is told.',
    example: 'Your API key was revoked; contact support',
  })
  message?: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When it ends by itself; null when it lasts until removed.',
    example: '2026-01-01T00:00:00.000Z',
  })
  expiresAt!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', example: '2025-12-31T08:00:00.000Z' })
  updatedAt!: string;
}

/** @publicApi */
export class ClientOverrideViewPageDto implements ClientOverrideViewPage {
  @ApiProperty({ type: [ClientOverrideViewDto] })
  items!: ClientOverrideViewDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null when the listing is complete.',
    example: '100',
  })
  cursor!: string | null;
}
