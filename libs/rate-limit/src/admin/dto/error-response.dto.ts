import { ApiProperty } from '@nestjs/swagger';

/** The body of a 400, 401 or 404 from the admin API (Nest's standard error shape). */
export class AdminErrorResponseDto {
  @ApiProperty({ type: 'integer', example: 400 })
  statusCode!: number;

  @ApiProperty({
    description: 'What went wrong; validation errors list one message per field, naming it.',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    example: ['limit must not be less than 1'],
  })
  message!: string | string[];

  @ApiProperty({ example: 'Bad Request' })
  error!: string;
}
