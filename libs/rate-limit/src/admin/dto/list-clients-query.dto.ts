import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { DEFAULT_KEYS_PAGE, MAX_KEYS_PAGE } from './list-keys-query.dto';
import { IsOptionalNotNull } from './window.validators';

/**
 * Query of `GET /admin/policies/:name/clients`.
 * @publicApi
 */
export class ListClientsQueryDto {
  @ApiPropertyOptional({
    description: 'The `cursor` of the previous page; omit it, or pass 0, for the first page.',
    example: '17',
    maxLength: 4096,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(4096)
  cursor?: string;

  @ApiPropertyOptional({
    description:
      'How many overrides to look at per page (a hint: a page may hold fewer items, or more).',
    type: 'integer',
    minimum: 1,
    maximum: MAX_KEYS_PAGE,
    default: DEFAULT_KEYS_PAGE,
  })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_KEYS_PAGE)
  count: number = DEFAULT_KEYS_PAGE;
}
