/**
 * Fingerprinted identities across processes, as users run them: three demo processes started at
 * the same moment race to store the identity secret (SET NX); whichever wins, all of them key an
 * API key alike, so a burst of 1,000 with one key across the three admits exactly the limit,
 * and Redis holds no API key in clear.
 */
import Redis from 'ioredis';
import { startTestRedis, type TestRedis } from '../../libs/rate-limit/test/support/redis-test-server';
import { type Fleet, startFleet } from '../support/demo-fleet';
import {
  type LoadGenerator,
  newSourceAddress,
  startLoadGenerator,
} from '../support/load-generator';

const LIMIT = 50;
const KEYS = ['sk_live_0123456789abcdefSECRET', 'sk_test_fedcba9876543210SECRET'];

describe('API keys keyed by fingerprint, 3 demo processes started together', () => {
  let redis: TestRedis;
  let raw: Redis;
  let fleet: Fleet;
  let load: LoadGenerator;

  beforeAll(async () => {
    redis = await startTestRedis();
    raw = new Redis(redis.url);
    load = startLoadGenerator();
    fleet = await startFleet(3, { REDIS_URL: redis.url }, { RATE_LIMIT_TIMEOUT_MS: '1000' });
    await fleet.setPolicy('demo.api-key', { limit: LIMIT, burst: LIMIT, windowMs: 600_000 });
  }, 120_000);
  afterAll(async () => {
    load?.close();
    await fleet?.stop();
    raw?.disconnect();
    await redis?.close();
  });

  it.each(KEYS)(
    'a burst of 1,000 with the key %s across the 3 admits exactly 50',
    async (apiKey) => {
      const result = await load.burst({
        targets: fleet.targets,
        path: '/api/keyed',
        count: 1_000,
        sourceAddress: newSourceAddress(),
        headers: { 'X-Api-Key': apiKey },
      });
      expect(result.statuses).toEqual({ 200: LIMIT, 429: 1_000 - LIMIT });
      expect(await fleet.faults()).toEqual({
        fallbackDecisions: 0,
        redisErrors: 0,
        circuitOpenings: 0,
      });
    },
    120_000,
  );

  it('Redis holds one fingerprinted key per API key and none in clear', async () => {
    const keys = await raw.keys('rl:{*}:demo.api-key:*');
    expect(keys).toHaveLength(KEYS.length);
    for (const key of keys) expect(key).toMatch(/^rl:\{key%3A!sk_[lt]!.{22}\}:demo\.api-key:/);
    const everything = (await raw.keys('*')).join('\n');
    expect(everything).not.toContain('SECRET');
    expect(await raw.get('rl:identity-secret')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
