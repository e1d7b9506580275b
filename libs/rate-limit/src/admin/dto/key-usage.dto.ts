import { ApiProperty } from '@nestjs/swagger';
import type { KeyUsage, KeyUsagePage } from '../policy-view.interface';

/** @publicApi */
export class KeyUsageDto implements KeyUsage {
  @ApiProperty({
    description: 'Who the key counts (`ip:`, `user:`, `key:`, ...); pass it URL-encoded to reset.',
    example: 'ip:203.0.113.7',
  })
  identity!: string;

  @ApiProperty({ type: 'integer', description: 'Units used in the current window.', example: 3 })
  used!: number;

  @ApiProperty({ type: 'integer', description: 'Units left before a 429.', example: 2 })
  remaining!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Milliseconds until the window resets or the bucket is full again.',
    example: 6_400,
  })
  resetMs!: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Milliseconds left of a `blockFor` penalty (listed even after its window ended); 0 when not blocked.',
    example: 0,
  })
  blockedMs!: number;
}

/** @publicApi */
export class KeyUsagePageDto implements KeyUsagePage {
  @ApiProperty({ type: [KeyUsageDto] })
  items!: KeyUsageDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null when the listing is complete.',
    example: '0:1739',
  })
  cursor!: string | null;
}
