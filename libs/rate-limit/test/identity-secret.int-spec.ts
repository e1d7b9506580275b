import { Test, type TestingModule } from '@nestjs/testing';
import Redis from 'ioredis';
import { RateLimitModule } from '../src/module/rate-limit.module';
import type { RateLimitModuleOptions } from '../src/config/rate-limit-module-options.interface';
import { RATE_LIMIT_CONFIG } from '../src/rate-limit.constants';
import type { RateLimitConfig } from '../src/config/resolve-module-options';
import { IdentitySecret } from '../src/runtime/identity-secret.service';
import { RateLimiterService } from '../src/service/rate-limiter.service';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';

/**
 * Identities that are secrets are keyed by an HMAC whose secret every instance shares: stored
 * once in Redis by the first instance, or given in the options. Real Redis, several modules
 * (each its own connection, as separate instances have).
 */
const POLICY = { name: 'p', algo: 'fixed-window' as const, limit: 3, window: '1h' };

let redis: TestRedis;
let raw: Redis;
const started: TestingModule[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  raw = new Redis(redis.url);
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((m) => m.close()));
});
afterAll(async () => {
  raw.disconnect();
  await redis.close();
});

async function instance(prefix: string, extra: Partial<RateLimitModuleOptions> = {}) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RateLimitModule.forRoot({
        redis: redis.url,
        keyPrefix: prefix,
        commandTimeoutMs: 2_000,
        policies: [POLICY],
        ...extra,
      }),
    ],
  }).compile();
  await moduleRef.init();
  started.push(moduleRef);
  return {
    limiter: moduleRef.get(RateLimiterService),
    keys: moduleRef.get<RateLimitConfig>(RATE_LIMIT_CONFIG).keys,
    secret: moduleRef.get(IdentitySecret),
  };
}

describe('the identity secret', () => {
  it('is generated once, kept in Redis, and shared: three instances count one user together', async () => {
    const prefix = uniquePrefix();
    const [a, b, c] = await Promise.all([instance(prefix), instance(prefix), instance(prefix)]);
    const secret = await raw.get(`${prefix}:identity-secret`);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const outcomes = [];
    for (const node of [a, b, c, a])
      outcomes.push((await node.limiter.consume('p', 'user:erin')).allowed);
    expect(outcomes).toEqual([true, true, true, false]);
    const keys = await raw.keys(`${prefix}:{*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain('erin');
    expect(keys[0]).toMatch(/^.*:\{user%3A!!.{22}\}:p:fw$/);
  });

  it('a secret of the options is used as is and not stored', async () => {
    const prefix = uniquePrefix();
    const identityHashing = { secret: 'from-a-secret-manager-0123456789abcdef' };
    const [a, b] = await Promise.all([
      instance(prefix, { identityHashing }),
      instance(prefix, { identityHashing }),
    ]);
    expect(await raw.exists(`${prefix}:identity-secret`)).toBe(0);
    expect(a.keys.identityTag('user:frank')).toBe(b.keys.identityTag('user:frank'));
  });

  it('when Redis lost it, the instances store theirs again; one that met another takes it', async () => {
    const prefix = uniquePrefix();
    const a = await instance(prefix);
    const before = a.keys.identityTag('user:gina');
    await raw.del(`${prefix}:identity-secret`); // a restart without persistence
    await a.secret.sync();
    expect(a.keys.identityTag('user:gina')).toBe(before); // its own secret is back in Redis
    const b = await instance(prefix);
    expect(b.keys.identityTag('user:gina')).toBe(before);
    // Two instances stored theirs after a loss: the one stored wins everywhere at the next sync.
    await raw.set(`${prefix}:identity-secret`, 'the-other-instances-secret-0123456789abc');
    await a.secret.sync();
    expect(a.keys.identityTag('user:gina')).not.toBe(before);
    await b.secret.sync();
    expect(b.keys.identityTag('user:gina')).toBe(a.keys.identityTag('user:gina'));
    // A weak secret written by hand is not taken.
    const kept = a.keys.identityTag('user:gina');
    await raw.set(`${prefix}:identity-secret`, 'short');
    await a.secret.sync();
    expect(a.keys.identityTag('user:gina')).toBe(kept);
  });

  it('identityHashing: false keeps identities in clear; ips: true hashes addresses too', async () => {
    const clear = await instance(uniquePrefix(), { identityHashing: false });
    expect(clear.keys.listedIdentity(clear.keys.identityTag('user:hugo'))).toBe('user:hugo');
    const hashed = await instance(uniquePrefix(), { identityHashing: { ips: true } });
    expect(hashed.keys.listedIdentity(hashed.keys.identityTag('ip:198.51.100.9'))).toMatch(
      /^ip:\(hmac:/,
    );
  });

  it.each([
    [{ secret: 'short' }, /identityHashing.secret" must be a string of at least 32/],
    [{ ips: 'yes' }, /identityHashing.ips" must be true or false/],
    ['on', /"identityHashing" must be false or/],
  ])('refuses identityHashing %j at bootstrap, naming the field', async (option, message) => {
    await expect(instance(uniquePrefix(), { identityHashing: option as never })).rejects.toThrow(
      message,
    );
  });
});
