import { RATE_LIMIT_ALGORITHMS } from '../src/policy/rate-limit-algorithm';
import { MAX_LIMIT, MAX_SLIDING_WINDOW_LIMIT, MAX_WINDOW_MS } from '../src/policy/policy-limits';
import {
  Client,
  memoryFactory,
  policy,
  redisFactory,
  type StoreFactory,
  type StoreUnderTest,
} from './support/store-harness';

/** The longest expiry or wait either store keeps or reports: 2^45 ms, about 1,100 years. */
const MAX_MS = 2 ** 45;

/**
 * Every value validation accepts must be decidable: an expiry like "one token of a billion per
 * 366 days" (3e19 ms) once overflowed the script's %d and made SET fail, failing the whole batch
 * (other clients' decisions too) after earlier keys were written. Waits and expiries beyond
 * about 1,100 years are capped, identically in both stores.
 */
const EXTREMES = [
  { limit: 1, burst: MAX_LIMIT, window: MAX_WINDOW_MS },
  { limit: MAX_LIMIT, burst: MAX_LIMIT, window: MAX_WINDOW_MS },
  { limit: 1, burst: 1, window: MAX_WINDOW_MS },
  { limit: MAX_LIMIT, burst: MAX_LIMIT, window: 1 },
];

const redis = redisFactory();
const factories: StoreFactory[] = [redis, redisFactory('scripts'), memoryFactory()];

describe.each(factories)('extreme valid thresholds: $name store', (factory) => {
  let sut: StoreUnderTest;

  beforeAll(() => factory.setup());
  afterAll(() => factory.teardown());
  beforeEach(async () => {
    sut = await factory.create();
  });

  describe.each(RATE_LIMIT_ALGORITHMS)('%s', (algo) => {
    it.each(EXTREMES)(
      'limit $limit, burst $burst, window $window ms: decided, expiry and waits capped',
      async (thresholds) => {
        // The sliding log's largest valid limit is its own (see policy-limits.ts).
        const limit =
          algo === 'sliding-window'
            ? Math.min(thresholds.limit, MAX_SLIDING_WINDOW_LIMIT)
            : thresholds.limit;
        const p = policy({ algo, ...thresholds, limit });
        const client = new Client(sut, 'ip:203.0.113.9');
        const capacity = algo.includes('bucket') || algo === 'gcra' ? p.burst : p.limit;
        // The whole capacity at once (the sliding log writes one member per unit: a few then).
        const cost = algo === 'sliding-window' ? Math.min(capacity, 3) : capacity;
        const first = await client.hit(p, undefined, cost);
        expect(first).toMatchObject({ allowed: true });
        expect(first.reason).toBeUndefined();
        for (const field of ['resetMs', 'retryAfterMs'] as const) {
          expect(first[field]).toBeGreaterThanOrEqual(0);
          expect(first[field]).toBeLessThanOrEqual(MAX_MS);
        }
        const pttl = await sut.pttl(client.entry(p).key);
        // Some states need no key at all, or less than a millisecond more (a 1 ms window).
        if (pttl !== -2) {
          expect(pttl).toBeGreaterThanOrEqual(0);
          expect(pttl).toBeLessThanOrEqual(MAX_MS);
        }
        // Used up: a refusal whose wait is capped too. The whole capacity again, not one unit:
        // a bucket of 1e9 a year refills one unit every 32 ms, which a busy host can take
        // between two calls (a CI run admitted that unit).
        if (cost === capacity && thresholds.window === MAX_WINDOW_MS) {
          const refused = await client.hit(p, undefined, cost);
          expect(refused).toMatchObject({ allowed: false, reason: 'limit' });
          expect(refused.retryAfterMs).toBeGreaterThan(0);
          expect(refused.retryAfterMs).toBeLessThanOrEqual(MAX_MS);
        }
      },
    );
  });
});

describe('one batch, one extreme group: the other groups are decided as usual', () => {
  let sut: StoreUnderTest;

  beforeAll(() => redis.setup());
  afterAll(() => redis.teardown());
  beforeEach(async () => {
    sut = await redis.create();
  });

  it.each(['token-bucket', 'leaky-bucket', 'gcra'] as const)(
    '%s: limit 1, burst 1e9, window 366 d beside 20 ordinary clients',
    async (algo) => {
      const extreme = policy({ algo, limit: 1, burst: MAX_LIMIT, window: MAX_WINDOW_MS }, 'x');
      const ordinary = policy({ algo: 'fixed-window', limit: 5, window: 60_000 }, 'o');
      // Made in one event-loop turn: the batcher sends them as one script call.
      const calls = [
        ...Array.from({ length: 10 }, (_, i) => new Client(sut, `ip:10.0.0.${i}`).hit(ordinary)),
        new Client(sut, 'ip:10.9.9.9').hit(extreme, undefined, MAX_LIMIT),
        ...Array.from({ length: 10 }, (_, i) => new Client(sut, `ip:10.0.1.${i}`).hit(ordinary)),
      ];
      const outcomes = await Promise.all(calls);
      expect(outcomes.every((o) => o.allowed)).toBe(true);
      expect(outcomes.filter((o) => o.remaining === 4)).toHaveLength(20);
    },
  );
});

describe.each(factories)('gcra with a TAT beyond the longest expiry: $name store', (factory) => {
  let sut: StoreUnderTest;

  beforeAll(() => factory.setup());
  afterAll(() => factory.teardown());
  beforeEach(async () => {
    sut = await factory.create();
  });

  it('keeps counting from the TAT it holds, as one number, on the next request', async () => {
    // One a 366 d window, burst 10,000: a cost of 2,000 puts the TAT 2,000 x 366 d ahead, past
    // the 2^45 ms that any expiry or wait is capped to (stored as one number, expiry capped).
    const p = policy({ algo: 'gcra', limit: 1, burst: 10_000, window: MAX_WINDOW_MS });
    const client = new Client(sut, 'ip:203.0.113.12');
    expect(2_000 * MAX_WINDOW_MS).toBeGreaterThan(MAX_MS);
    expect(await client.hit(p, undefined, 2_000)).toMatchObject({
      allowed: true,
      remaining: 8_000,
    });
    expect(await client.hit(p)).toMatchObject({ allowed: true, remaining: 7_999 });
    expect(await client.hit(p, undefined, 8_000)).toMatchObject({
      allowed: false,
      remaining: 7_999,
    });
  });
});

describe.each(factories)('sliding-window at its largest limit: $name store', (factory) => {
  let sut: StoreUnderTest;

  beforeAll(() => factory.setup());
  afterAll(() => factory.teardown());
  beforeEach(async () => {
    sut = await factory.create();
  });

  it(`a cost of the whole limit (${MAX_SLIDING_WINDOW_LIMIT}) is admitted once, then refused`, async () => {
    const p = policy({ algo: 'sliding-window', limit: MAX_SLIDING_WINDOW_LIMIT, window: 60_000 });
    const client = new Client(sut, 'ip:203.0.113.10');
    expect(await client.hit(p, undefined, MAX_SLIDING_WINDOW_LIMIT)).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    expect(await client.hit(p)).toMatchObject({ allowed: false, reason: 'limit', remaining: 0 });
    // Beyond the capacity: never admissible, nothing looped over.
    expect(
      await new Client(sut, 'ip:203.0.113.11').hit(p, undefined, MAX_SLIDING_WINDOW_LIMIT + 1),
    ).toMatchObject({ allowed: false, reason: 'cost-exceeds-capacity' });
  });
});

describe('sliding-window: the work of one large cost in Redis', () => {
  let sut: StoreUnderTest;

  beforeAll(() => redis.setup());
  afterAll(() => redis.teardown());
  beforeEach(async () => {
    sut = await redis.create();
  });

  const zaddCalls = async () => {
    const info = await redis.admin().info('commandstats');
    return Number(/cmdstat_zadd:calls=(\d+)/.exec(info)?.[1] ?? 0);
  };

  // A cost of 300,000 once meant 300,000 ZADDs in one script (Redis blocked for 910 ms).
  it('a cost of 10,000 is added in chunks: at most 10 ZADD calls', async () => {
    const p = policy({ algo: 'sliding-window', limit: MAX_SLIDING_WINDOW_LIMIT, window: 60_000 });
    const before = await zaddCalls();
    await new Client(sut, 'ip:203.0.113.12').hit(p, undefined, MAX_SLIDING_WINDOW_LIMIT);
    expect((await zaddCalls()) - before).toBeLessThanOrEqual(10);
    expect(await redis.admin().zcard(new Client(sut, 'ip:203.0.113.12').entry(p).key)).toBe(
      MAX_SLIDING_WINDOW_LIMIT,
    );
  });
});
