/**
 * The library-level contenders, all in this process, each on its own ioredis connection:
 * - ours: the public `RateLimiterService.consume(policy, identity)` from a Nest application
 *   context (RateLimitModule.forRoot with its own client, as an application would use it);
 * - floor: a raw `evalsha` of a one-line INCR script through ioredis;
 * - rate-limiter-flexible: `RateLimiterRedis` (`useRedisPackage: false`) on an ioredis client;
 * - @nest-lab: `ThrottlerStorageRedisService.increment()` (the storage @nestjs/throttler calls).
 */
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import {
  RATE_LIMIT_ALGORITHMS,
  type RateLimitAlgorithm,
  type RateLimitDecision,
  RateLimiterService,
  RateLimitModule,
} from '../../libs/rate-limit/src';
import { FLOOR_SCRIPT } from '../http/scenarios';

export const ALL_ALLOWED_LIMIT = 1_000_000_000;
/** Limits of the memory phase: one request leaves every algorithm's state in Redis for minutes. */
export const MEMORY_LIMIT = 100;
export const HOUR_MS = 3_600_000;

/** Policy names of the memory phase: short, as an application would name them ('api-fw'…). */
export const MEMORY_POLICY: Record<RateLimitAlgorithm, string> = {
  'fixed-window': 'api-fw',
  'sliding-window': 'api-sw',
  'sliding-window-counter': 'api-swc',
  'token-bucket': 'api-tb',
  'leaky-bucket': 'api-lb',
  gcra: 'api-gcra',
};

/**
 * The same fixed-window and GCRA policies under 2-character names: keys of at most 28
 * characters (`rl:{ip%3A10.0.39.15}:f2:fw`), which jemalloc holds in 32 B where the 29 to 44 of
 * the names above take 48. Shows what a client costs when the key is that short.
 */
export const SHORT_MEMORY_POLICY = { 'fixed-window': 'f2', gcra: 'g2' } as const;

export type ContenderName = 'ours' | 'floor' | 'rate-limiter-flexible' | 'nest-lab';
export const CONTENDERS: readonly ContenderName[] = [
  'ours',
  'floor',
  'rate-limiter-flexible',
  'nest-lab',
];

/** Client `i` of a population, as an identity string (same strings for every contender). */
export function identity(i: number): string {
  return `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

@Module({})
class LibraryBenchModule {}

export interface Contenders {
  /** The application context of `ours` (its engine and store, for the per-layer counts). */
  readonly context: INestApplicationContext;
  readonly service: RateLimiterService;
  readonly call: Record<ContenderName, (id: string) => Promise<unknown>>;
  /** Decisions of `ours` that did not come from Redis (timeouts falling back to memory). */
  readonly oursNotFromRedis: () => number;
  readonly rlfMemory: RateLimiterRedis;
  readonly nestLab: ThrottlerStorageRedisService;
  close(): Promise<void>;
}

export async function createContenders(redisUrl: string): Promise<Contenders> {
  const context: INestApplicationContext = await NestFactory.createApplicationContext(
    {
      module: LibraryBenchModule,
      imports: [
        RateLimitModule.forRoot({
          redis: redisUrl,
          keyPrefix: 'rl',
          policies: [
            { name: 'bench', algo: 'fixed-window', limit: ALL_ALLOWED_LIMIT, window: '1h' },
            ...RATE_LIMIT_ALGORITHMS.map((algo) => ({
              name: MEMORY_POLICY[algo],
              algo,
              limit: MEMORY_LIMIT,
              window: '1h' as const,
            })),
            ...(['fixed-window', 'gcra'] as const).map((algo) => ({
              name: SHORT_MEMORY_POLICY[algo],
              algo,
              limit: MEMORY_LIMIT,
              window: '1h' as const,
            })),
          ],
        }),
      ],
    },
    { logger: ['error', 'warn'] },
  );
  const service = context.get(RateLimiterService);

  const floorClient = new Redis(redisUrl);
  const floorSha = (await floorClient.script('LOAD', FLOOR_SCRIPT)) as string;
  const rlfClient = new Redis(redisUrl);
  const rlf = new RateLimiterRedis({
    storeClient: rlfClient,
    useRedisPackage: false,
    keyPrefix: 'rlflx',
    points: ALL_ALLOWED_LIMIT,
    duration: HOUR_MS / 1000,
  });
  const rlfMemory = new RateLimiterRedis({
    storeClient: rlfClient,
    useRedisPackage: false,
    keyPrefix: 'rlflx',
    points: MEMORY_LIMIT,
    duration: HOUR_MS / 1000,
  });
  const nestLabClient = new Redis(redisUrl);
  const nestLab = new ThrottlerStorageRedisService(nestLabClient);

  let notFromRedis = 0;
  const countSource = (d: RateLimitDecision) => {
    if (d.source !== 'redis') notFromRedis++;
    return d;
  };
  return {
    context,
    service,
    call: {
      ours: (id) => service.consume('bench', id).then(countSource),
      floor: (id) => floorClient.evalsha(floorSha, 1, `floor:{${id}}`),
      'rate-limiter-flexible': (id) => rlf.consume(id),
      // What ThrottlerGuard passes: ttl, limit, blockDuration (defaults to ttl), throttler name.
      'nest-lab': (id) => nestLab.increment(id, HOUR_MS, ALL_ALLOWED_LIMIT, HOUR_MS, 'default'),
    },
    oursNotFromRedis: () => notFromRedis,
    rlfMemory,
    nestLab,
    close: async () => {
      await context.close();
      for (const client of [floorClient, rlfClient, nestLabClient]) {
        await client.quit().catch(() => client.disconnect());
      }
    },
  };
}
