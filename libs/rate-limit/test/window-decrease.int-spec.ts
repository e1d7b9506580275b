import { Test, type TestingModule } from '@nestjs/testing';
import Redis from 'ioredis';
import { ADMIN_PLANE_PROVIDERS } from '../src/admin/admin-plane.providers';
import { RateLimitAdminService } from '../src/admin/rate-limit-admin.service';
import { PolicyKeys } from '../src/admin/policy-keys';
import { RateLimitModule } from '../src/module/rate-limit.module';
import type { RateLimitModuleOptions } from '../src/config/rate-limit-module-options.interface';
import { RATE_LIMIT_STORE } from '../src/rate-limit.constants';
import { RateLimiterService } from '../src/service/rate-limiter.service';
import type { MemoryStore } from '../src/store/memory/memory-store';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { within } from './support/within';
import { windowAndItsDouble } from './support/window-headroom';
import { ALGORITHM_KEY_CODE } from '../src/keys/key-builder';
import type { RateLimitAlgorithm } from '../src/policy/rate-limit-algorithm';

/**
 * A shorter window re-tightens every key of the policy at once (issue 11, defect 5): an
 * exhausted client that sends nothing more is free within one new window, not when the old
 * one ends. Counts are kept (see the conformance suite); only how long they may live changes.
 */
const ALGOS = ['fixed-window', 'sliding-window-counter', 'sliding-window', 'token-bucket'] as const;
/**
 * The policies' window (days, its boundary not within the hour: every key lives more than the
 * minute the test requires of it before the change, wherever the clock is) and a longer one.
 */
const WINDOWS = windowAndItsDouble();
const CLIENTS = ['ip:198.51.100.1', 'ip:198.51.100.2', 'ip:198.51.100.3'];

let redis: TestRedis;
let raw: Redis;
beforeAll(async () => {
  redis = await startTestRedis();
  raw = new Redis(redis.url);
});
afterAll(async () => {
  raw.disconnect();
  await redis.close();
});

const stores: [string, () => Partial<RateLimitModuleOptions>][] = [
  ['redis', () => ({ redis: redis.url })],
  ['memory', () => ({})],
];

describe.each(stores)('a window shortened through the admin API: %s store', (store, options) => {
  let moduleRef: TestingModule;
  let prefix: string;

  beforeEach(async () => {
    prefix = uniquePrefix();
    moduleRef = await Test.createTestingModule({
      imports: [
        RateLimitModule.forRoot({
          ...options(),
          keyPrefix: prefix,
          commandTimeoutMs: 2_000,
          policies: ALGOS.map((algo) => ({ name: algo, algo, limit: 2, window: WINDOWS.windowMs })),
        }),
      ],
      providers: [...ADMIN_PLANE_PROVIDERS, RateLimitAdminService, PolicyKeys],
    }).compile();
    await moduleRef.init();
  });
  afterEach(() => moduleRef.close());

  /** Milliseconds to live of every state key of the policy. */
  const ttls = async (algo: RateLimitAlgorithm): Promise<number[]> => {
    if (store === 'redis') {
      const keys = await raw.keys(`${prefix}:{*}:${algo}:${ALGORITHM_KEY_CODE[algo]}`);
      return Promise.all(keys.map((key) => raw.pttl(key)));
    }
    const memory = moduleRef.get<MemoryStore>(RATE_LIMIT_STORE);
    const { keys } = await memory.scan(
      `${prefix}:{*}:${algo}:${ALGORITHM_KEY_CODE[algo]}`,
      null,
      1_000,
    );
    return keys.map((key) => memory.keyspace.pttl(key));
  };

  it.each(ALGOS)('%s: every key re-tightened, an idle exhausted client freed', async (algo) => {
    const limiter = moduleRef.get(RateLimiterService);
    for (const client of CLIENTS) {
      for (let i = 0; i < 3; i++) await limiter.consume(algo, client);
    }
    expect((await limiter.peek(algo, CLIENTS[0])).remaining).toBe(0);
    const before = await ttls(algo);
    expect(before).toHaveLength(CLIENTS.length);
    for (const ttl of before) expect(ttl).toBeGreaterThan(60_000);

    await moduleRef.get(RateLimitAdminService).update(algo, { windowMs: 1_000 });

    const after = await ttls(algo);
    expect(after).toHaveLength(CLIENTS.length);
    // Two windows for the sliding counter (its previous window still weighs).
    for (const ttl of after) expect(ttl).toBeLessThanOrEqual(2_000);
    // Nothing sent since: free within the new window(s), not when the old one ends.
    await within(5_000, async () => (await limiter.peek(algo, CLIENTS[0])).remaining === 2);
  });

  it('a longer window leaves the keys alone', async () => {
    const limiter = moduleRef.get(RateLimiterService);
    await limiter.consume('fixed-window', CLIENTS[0]);
    const [before] = await ttls('fixed-window');
    await moduleRef
      .get(RateLimitAdminService)
      .update('fixed-window', { windowMs: WINDOWS.doubleMs });
    const [after] = await ttls('fixed-window');
    expect(after).toBeGreaterThan(before - 5_000);
  });
});
