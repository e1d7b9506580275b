import { resolveModuleOptions } from '../config/resolve-module-options';
import { RateLimitStoreError } from '../errors/rate-limit-store.error';
import { normalizePolicy } from '../policy/normalize-policy';
import type { IdentityResets } from '../runtime/identity-resets.service';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import type { RateLimitStore, StoreReply } from '../store/rate-limit-store.interface';
import { PolicyKeys } from './policy-keys';
import { toHttpError } from './errors-to-http.interceptor';

const config = resolveModuleOptions({ keyPrefix: 'rl' });
const policy = normalizePolicy({ limit: 5, window: '10s' }, 'p', 'test');

/**
 * The admin's read model over a store whose SCAN finds two keys, and whose batched read of
 * their usage answers `inspect()` (a reply per key, an Error for a key that could not be read).
 */
function keysWith(inspect: () => Promise<(StoreReply | Error)[]>): PolicyKeys {
  const store = {
    source: 'redis',
    scan: async () => ({
      keys: ['rl:{ip%3A10.0.0.1}:p:fw', 'rl:{ip%3A10.0.0.2}:p:fw'],
      cursor: null,
    }),
    existing: async (keys: string[]) => keys.map(() => false),
    inspect,
  } as unknown as RateLimitStore;
  return new PolicyKeys(store, config, {} as IdentityResets);
}

const decision = (remaining: number): RateLimitDecision => ({
  policy: 'p',
  allowed: true,
  shadow: false,
  limit: 5,
  remaining,
  resetMs: 0,
  retryAfterMs: 0,
  source: 'redis',
});

const usage = (remaining: number): StoreReply => ({
  admitted: true,
  decisions: [decision(remaining)],
  decidedAtUs: 0,
});

describe('PolicyKeys (the admin keys listing)', () => {
  it('lists what Redis answered', async () => {
    const page = await keysWith(async () => [usage(5), usage(3)]).page(policy, undefined, 100);
    expect(page.items).toEqual([
      { identity: 'ip:10.0.0.1', used: 0, remaining: 5, resetMs: 0, blockedMs: 0 },
      { identity: 'ip:10.0.0.2', used: 2, remaining: 3, resetMs: 0, blockedMs: 0 },
    ]);
  });

  it("counts a quota client's use against its quota's capacity, not the policy's", async () => {
    const quota = (remaining: number, limit: number): StoreReply => ({
      admitted: true,
      decisions: [{ ...decision(remaining), limit, clientOverride: 'quota' }],
      decidedAtUs: 0,
    });
    const page = await keysWith(async () => [quota(490, 500), quota(1, 3)]).page(
      policy,
      undefined,
      100,
    );
    expect(page.items.map(({ used, remaining }) => ({ used, remaining }))).toEqual([
      { used: 10, remaining: 490 },
      { used: 2, remaining: 1 },
    ]);
  });

  it('leaves out a key Redis could not read (another type, written by hand)', async () => {
    const wrongType = new RateLimitStoreError('error', 'WRONGTYPE');
    const page = await keysWith(async () => [wrongType, usage(4)]).page(policy, undefined, 100);
    expect(page.items.map((i) => i.identity)).toEqual(['ip:10.0.0.2']);
  });

  it('answers 503 when Redis does not answer the read, never usage made up elsewhere', async () => {
    const failing = keysWith(async () => {
      throw new RateLimitStoreError('timeout', 'Redis did not answer within 2000 ms');
    });
    const error = await failing.page(policy, undefined, 100).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitStoreError);
    expect(toHttpError(error)).toMatchObject({
      status: 503,
      message: 'Redis is unavailable: Redis did not answer within 2000 ms',
    });
  });

  it('turns a client error that is not one of the library (connection closed) into a 503', async () => {
    const failing = keysWith(async () => {
      throw new Error('Connection is closed.');
    });
    const error = await failing.page(policy, undefined, 100).catch((e: unknown) => e);
    expect(toHttpError(error)).toMatchObject({
      status: 503,
      message: 'Redis is unavailable: Connection is closed.',
    });
  });
});
