import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsOptionalNotNull } from './window.validators';

export const MAX_KEYS_PAGE = 1000;
export const DEFAULT_KEYS_PAGE = 100;

/** `count` of a listing's query: how much one page looks at, 1..MAX_KEYS_PAGE. */
export function PageCountField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description,
      type: 'integer',
      minimum: 1,
      maximum: MAX_KEYS_PAGE,
      default: DEFAULT_KEYS_PAGE,
    }),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(MAX_KEYS_PAGE),
  );
}

/**
 * Query of `GET /admin/policies/:name/keys`.
 * @publicApi
 */
export class ListKeysQueryDto {
  @ApiPropertyOptional({
    description: 'The `cursor` of the previous page; omit it, or pass 0, for the first page.',
    example: '0:1739',
    maxLength: 4096,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(4096)
  cursor?: string;

  @PageCountField(
    'How many keys to look at per page (a SCAN COUNT hint: a page may hold fewer items).',
  )
  count: number = DEFAULT_KEYS_PAGE;
}
