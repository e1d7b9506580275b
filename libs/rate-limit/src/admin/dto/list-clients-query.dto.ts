import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { DEFAULT_KEYS_PAGE, PageCountField } from './list-keys-query.dto';
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

  @PageCountField(
    'How many overrides to look at per page (a hint: a page may hold fewer items, or more).',
  )
  count: number = DEFAULT_KEYS_PAGE;
}
