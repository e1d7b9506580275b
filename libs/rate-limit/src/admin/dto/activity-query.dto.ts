import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsOptionalNotNull } from './window.validators';

/**
 * Query of the traffic routes.
 * @publicApi
 */
export class TrafficQueryDto {
  @ApiPropertyOptional({
    description: 'How many minutes back, up to the hour the series keeps.',
    type: 'integer',
    minimum: 1,
    maximum: 60,
    default: 60,
  })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(60)
  minutes: number = 60;
}

/**
 * Query of `GET /admin/policies/:name/top-rejected`.
 * @publicApi
 */
export class TopRejectedQueryDto {
  @ApiPropertyOptional({
    description: 'How many minutes back (whole minutes, the current one included).',
    type: 'integer',
    minimum: 1,
    maximum: 10,
    default: 5,
  })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10)
  minutes: number = 5;

  @ApiPropertyOptional({
    description: 'How many identities at most.',
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 20,
  })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  count: number = 20;
}

/**
 * Query of `GET /admin/audit`.
 * @publicApi
 */
export class AuditQueryDto {
  @ApiPropertyOptional({
    description: 'Only this policy\'s entries; "(adaptive)": adaptive protection\'s.',
    example: 'demo.gcra',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  @Matches(/\S/, { message: 'policy must not be blank' })
  policy?: string;

  @ApiPropertyOptional({
    description: 'How many entries at most, newest first.',
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    default: 100,
  })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit: number = 100;
}
