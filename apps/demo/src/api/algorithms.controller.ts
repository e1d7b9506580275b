import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { RateLimit } from '@app/rate-limit';
import { AlgorithmAnswerDto } from './demo-answer.dto';

const ANSWER = ApiOkResponse({ type: AlgorithmAnswerDto, description: 'Admitted' });

const PER_CLIENT = { limit: 5, window: '10s', key: 'ip' } as const;

/** One route per algorithm, each 5 requests per 10 s per client IP (burst = limit). */
@Controller('api')
export class AlgorithmsController {
  @Get('fixed-window')
  @ANSWER
  @RateLimit({ name: 'demo.fixed-window', algo: 'fixed-window', ...PER_CLIENT })
  fixedWindow() {
    return { algo: 'fixed-window', ok: true };
  }

  @Get('sliding-window')
  @ANSWER
  @RateLimit({ name: 'demo.sliding-window', algo: 'sliding-window', ...PER_CLIENT })
  slidingWindow() {
    return { algo: 'sliding-window', ok: true };
  }

  @Get('sliding-window-counter')
  @ANSWER
  @RateLimit({ name: 'demo.sliding-window-counter', algo: 'sliding-window-counter', ...PER_CLIENT })
  slidingWindowCounter() {
    return { algo: 'sliding-window-counter', ok: true };
  }

  @Get('token-bucket')
  @ANSWER
  @RateLimit({ name: 'demo.token-bucket', algo: 'token-bucket', ...PER_CLIENT })
  tokenBucket() {
    return { algo: 'token-bucket', ok: true };
  }

  @Get('leaky-bucket')
  @ANSWER
  @RateLimit({ name: 'demo.leaky-bucket', algo: 'leaky-bucket', ...PER_CLIENT })
  leakyBucket() {
    return { algo: 'leaky-bucket', ok: true };
  }

  @Get('gcra')
  @ANSWER
  @RateLimit({ name: 'demo.gcra', algo: 'gcra', ...PER_CLIENT })
  gcra() {
    return { algo: 'gcra', ok: true };
  }
}
