import { ServiceUnavailableException } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { RateLimitStoreError } from '../errors/rate-limit-store.error';
import { resolveModuleOptions } from '../module/resolve-module-options';
import { normalizePolicy } from '../policy/normalize-policy';
import { PolicyRegistry } from '../registry/policy-registry';
import type { PolicyStats } from '../runtime/policy-stats.service';
import type { PolicyOverrideStore } from '../runtime/policy-override-store';
import type { RateLimiterService } from '../service/rate-limiter.service';
import type { RateLimitStore } from '../store/rate-limit-store.interface';
import { RateLimitAdminService } from './rate-limit-admin.service';

const config = resolveModuleOptions({ keyPrefix: 'rl' });
const policy = normalizePolicy({ limit: 5, window: '10s' }, 'p', 'test');

/**
 * The admin service over a store whose SCAN finds two keys, and a limiter whose batched read of
 * their usage answers `read()` (the decisions, undefined for a key that could not be read).
 */
function adminWith(read: () => Promise<(RateLimitDecision | undefined)[]>): RateLimitAdminService {
  const registry = new PolicyRegistry();
  registry.register(policy, 'test', true);
  const store = {
    kind: 'redis',
    scan: async () => ({
      keys: ['rl:{ip%3A10.0.0.1}:p:fixed-window', 'rl:{ip%3A10.0.0.2}:p:fixed-window'],
      cursor: null,
    }),
    existing: async (keys: string[]) => keys.map(() => false),
  } as unknown as RateLimitStore;
  const limiter = { peekTags: read } as unknown as RateLimiterService;
  return new RateLimitAdminService(
    registry,
    {} as PolicyStats,
    limiter,
    {} as PolicyOverrideStore,
    store,
    config,
    new ApplicationConfig(),
  );
}

const usage = (remaining: number) =>
  ({ policy: 'p', allowed: true, remaining, resetMs: 0, source: 'redis' }) as RateLimitDecision;

describe('RateLimitAdminService keys listing', () => {
  it('lists what Redis answered', async () => {
    const page = await adminWith(async () => [usage(5), usage(3)]).keys('p', undefined, 100);
    expect(page.items).toEqual([
      { identity: 'ip:10.0.0.1', used: 0, remaining: 5, resetMs: 0, blockedMs: 0 },
      { identity: 'ip:10.0.0.2', used: 2, remaining: 3, resetMs: 0, blockedMs: 0 },
    ]);
  });

  it('leaves out a key Redis could not read (another type, written by hand)', async () => {
    const page = await adminWith(async () => [undefined, usage(4)]).keys('p', undefined, 100);
    expect(page.items.map((i) => i.identity)).toEqual(['ip:10.0.0.2']);
  });

  it('answers 503 when Redis does not answer the read, never usage made up elsewhere', async () => {
    const failing = adminWith(async () => {
      throw new RateLimitStoreError('timeout', 'Redis did not answer within 2000 ms');
    });
    await expect(failing.keys('p', undefined, 100)).rejects.toThrow(ServiceUnavailableException);
  });
});
