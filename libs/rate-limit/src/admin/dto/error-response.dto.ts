import { ApiProperty } from '@nestjs/swagger';

/** The body of a 400, 401, 404 or 503 from the admin API (Nest's standard error shape). */
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

/** The body of a 429 from the admin API: too many failed token attempts from one client. */
export class AdminTooManyFailuresDto {
  @ApiProperty({ type: 'integer', example: 429 })
  statusCode!: number;

  @ApiProperty({ example: 'Too Many Requests: too many failed admin token attempts' })
  message!: string;

  @ApiProperty({ example: 'rate-limit-admin.failed-token' })
  policy!: string;

  @ApiProperty({ type: 'integer', description: 'Seconds until the client may try again.' })
  retryAfter!: number;
}
