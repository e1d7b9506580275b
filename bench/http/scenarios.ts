/**
 * The small Nest apps measured over HTTP. Each one has a single route, GET /hello, answering
 * 'ok'; they differ only in what guards it. Every app runs in its own child process
 * (http/server.ts), so the load generator never shares its event loop.
 */
import {
  applyDecorators,
  type CanActivate,
  Controller,
  type DynamicModule,
  type ExecutionContext,
  Get,
  HttpException,
  Inject,
  Injectable,
  Module,
  Res,
  type Type,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { Redis } from 'ioredis';
import {
  RATE_LIMIT_ALGORITHMS,
  RateLimit,
  type RateLimitAlgorithm,
  RateLimitGuard,
  RateLimitModule,
  type RateLimitOptions,
} from '../../libs/rate-limit/src';

/** Limits that are never reached in a run: every request is admitted. */
const ALL_ALLOWED = { limit: 1_000_000_000, window: '1h' } as const;
const SLIDING_LOG_ALL_ALLOWED = { limit: 10_000, window: '1s' } as const;
/** The throttler equivalent (ttl in ms). */
const THROTTLER_ALL_ALLOWED = { ttl: 3_600_000, limit: 1_000_000_000 };

export const FLOOR_SCRIPT = "return redis.call('INCR', KEYS[1])";

export interface ScenarioSpec {
  readonly name: string;
  readonly label: string;
  /** What a correct run answers: 'allowed' = only 2xx; 'rejected' = 429 after the first. */
  readonly expect: 'allowed' | 'rejected';
}

const algoScenarios: ScenarioSpec[] = RATE_LIMIT_ALGORITHMS.map((algo) => ({
  name: `ours-${algo}`,
  label: `ours, 1 policy, ${algo}${algo === 'fixed-window' ? ' (= "one policy")' : ''}`,
  expect: 'allowed',
}));

export const SCENARIOS: readonly ScenarioSpec[] = [
  { name: 'bare', label: 'bare app (no limiter)', expect: 'allowed' },
  {
    name: 'bare-429',
    label: 'bare app answering every request with the same 429 itself (no limiter)',
    expect: 'rejected',
  },
  {
    name: 'floor-guard',
    label: 'floor: guard doing one EVALSHA (INCR)',
    expect: 'allowed',
  },
  ...algoScenarios,
  { name: 'ours-stacked-3', label: 'ours, 3 stacked policies (fixed-window)', expect: 'allowed' },
  { name: 'ours-flood', label: 'ours, flood: 1 client far over its limit', expect: 'rejected' },
  { name: 'throttler-memory', label: '@nestjs/throttler, in-memory storage', expect: 'allowed' },
  {
    name: 'throttler-redis',
    label: '@nestjs/throttler + @nest-lab/throttler-storage-redis',
    expect: 'allowed',
  },
];

function helloController(...decorators: MethodDecorator[]): Type {
  @Controller()
  class BenchController {
    @Get('hello')
    @applyDecorators(...decorators)
    hello(): string {
      return 'ok';
    }
  }
  return BenchController;
}

/**
 * What answering a 429 costs in Nest without any limiter: the handler sets the headers our guard
 * sets and throws an HttpException with the same body, as a hand-written guard would. The flood
 * scenario is compared with it to separate the limiter's cost from Nest's exception path.
 */
function tooManyRequestsController(): Type {
  @Controller()
  class BenchController {
    @Get('hello')
    hello(
      @Res({ passthrough: true }) response: { setHeader(name: string, value: string): void },
    ): never {
      response.setHeader('RateLimit-Limit', '1');
      response.setHeader('RateLimit-Remaining', '0');
      response.setHeader('RateLimit-Reset', '3600');
      response.setHeader('Retry-After', '3600');
      throw new HttpException(
        { statusCode: 429, message: 'Too Many Requests', policy: 'flood', retryAfter: 3600 },
        429,
      );
    }
  }
  return BenchController;
}

function oursModule(redisUrl: string, policies: RateLimitOptions[]): DynamicModule {
  @Module({})
  class OursBenchModule {}
  return {
    module: OursBenchModule,
    imports: [RateLimitModule.forRoot({ redis: redisUrl, keyPrefix: 'bench' })],
    controllers: [helloController(...policies.map((p) => RateLimit(p)))],
    providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
  };
}

const FLOOR_REDIS = Symbol('FLOOR_REDIS');

/** The least a Redis-backed guard can do: one EVALSHA of a one-line script per request. */
@Injectable()
class FloorGuard implements CanActivate {
  private readonly sha: Promise<string>;

  constructor(@Inject(FLOOR_REDIS) private readonly redis: Redis) {
    this.sha = redis.script('LOAD', FLOOR_SCRIPT) as Promise<string>;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<{ ip?: string }>();
    await this.redis.evalsha(await this.sha, 1, `floor:{ip:${request.ip}}`);
    return true;
  }
}

export function scenarioModule(name: string, redisUrl: string): DynamicModule {
  @Module({})
  class BenchAppModule {}
  const algo = /^ours-(.+)$/.exec(name)?.[1];
  switch (name) {
    case 'bare':
      return { module: BenchAppModule, controllers: [helloController()] };
    case 'bare-429':
      return { module: BenchAppModule, controllers: [tooManyRequestsController()] };
    case 'floor-guard':
      return {
        module: BenchAppModule,
        controllers: [helloController()],
        providers: [
          { provide: FLOOR_REDIS, useFactory: () => new Redis(redisUrl) },
          { provide: APP_GUARD, useClass: FloorGuard },
        ],
      };
    case 'ours-stacked-3':
      return oursModule(redisUrl, [
        { name: 'per-minute', algo: 'fixed-window', limit: ALL_ALLOWED.limit, window: '1m' },
        { name: 'per-hour', algo: 'fixed-window', limit: ALL_ALLOWED.limit, window: '1h' },
        { name: 'per-day', algo: 'fixed-window', limit: ALL_ALLOWED.limit, window: '1d' },
      ]);
    case 'ours-flood':
      return oursModule(redisUrl, [
        { name: 'flood', algo: 'fixed-window', limit: 1, window: '1h' },
      ]);
    case 'throttler-memory':
      return {
        module: BenchAppModule,
        imports: [ThrottlerModule.forRoot([THROTTLER_ALL_ALLOWED])],
        controllers: [helloController()],
        providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
      };
    case 'throttler-redis':
      return {
        module: BenchAppModule,
        imports: [
          ThrottlerModule.forRoot({
            throttlers: [THROTTLER_ALL_ALLOWED],
            storage: new ThrottlerStorageRedisService(redisUrl),
          }),
        ],
        controllers: [helloController()],
        providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
      };
    default:
      if (algo && (RATE_LIMIT_ALGORITHMS as readonly string[]).includes(algo)) {
        // A sliding log keeps one entry per request, so its limit is at most 10,000: per second,
        // above what one process serves here (about 7,300 req/s), so every request is admitted.
        const thresholds = algo === 'sliding-window' ? SLIDING_LOG_ALL_ALLOWED : ALL_ALLOWED;
        return oursModule(redisUrl, [
          { name: 'one', algo: algo as RateLimitAlgorithm, ...thresholds },
        ]);
      }
      throw new Error(`Unknown scenario ${name}`);
  }
}
