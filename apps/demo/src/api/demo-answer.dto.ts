import { ApiProperty } from '@nestjs/swagger';
import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from '@app/rate-limit';

// What the public demo routes answer when admitted, so that generated clients get a type.

export class AlgorithmAnswerDto {
  @ApiProperty({ enum: RATE_LIMIT_ALGORITHMS, description: 'The algorithm that admitted it.' })
  algo!: RateLimitAlgorithm;

  @ApiProperty({ enum: [true] })
  ok!: true;
}

export class RouteAnswerDto {
  @ApiProperty({ example: 'stacked', description: 'Which demo route answered.' })
  route!: string;

  @ApiProperty({ enum: [true] })
  ok!: true;
}
