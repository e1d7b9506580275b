/**
 * The small Nest apps measured over HTTP. Each one has a single route, GET /hello, answering
 * 'ok'; they differ only in what guards it. Every app runs in its own child process
 * (http/server.ts), so the load generator never shares its event loop.
 */
import {
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
import { helloController } from './hello-controller';
import { OURS_SCENARIOS, oursScenarioModule } from './ours-scenarios';

/** The throttler's equivalent of a limit never reached in a run (ttl in ms). */
const THROTTLER_ALL_ALLOWED = { ttl: 3_600_000, limit: 1_000_000_000 };

export const FLOOR_SCRIPT = "return redis.call('INCR', KEYS[1])";

export interface ScenarioSpec {
  readonly name: string;
  readonly label: string;
  /** What a correct run answers: 'allowed' = only 2xx; 'rejected' = 429 after the first. */
  readonly expect: 'allowed' | 'rejected';
  /**
   * The key prefix of the client overrides the app writes at bootstrap: the benchmark copies
   * them once and puts them back after each FLUSHALL (stored-overrides.ts).
   */
  readonly overridesPrefix?: string;
}

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
  ...OURS_SCENARIOS,
  { name: 'throttler-memory', label: '@nestjs/throttler, in-memory storage', expect: 'allowed' },
  {
    name: 'throttler-redis',
    label: '@nestjs/throttler + @nest-lab/throttler-storage-redis',
    expect: 'allowed',
  },
];

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
    default: {
      const ours = oursScenarioModule(name, redisUrl);
      if (ours) return ours;
      throw new Error(`Unknown scenario ${name}`);
    }
  }
}
