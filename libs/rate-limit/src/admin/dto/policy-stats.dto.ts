import { ApiProperty } from '@nestjs/swagger';
import type { PolicyStatsView } from '../policy-view.interface';

/** @publicApi */
export class PolicyStatsDto implements PolicyStatsView {
  @ApiProperty({
    type: 'integer',
    description: 'Requests admitted, on every instance.',
    example: 42,
  })
  allowed!: number;

  @ApiProperty({ type: 'integer', description: 'Requests rejected (429).', example: 3 })
  rejected!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Requests a shadow-mode policy would have rejected (let through).',
    example: 0,
  })
  shadowRejected!: number;
}
