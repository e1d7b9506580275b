import { ServiceUnavailableException } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
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

/** The admin service over a Redis store whose SCAN finds two keys and peeks that answer `sources`. */
function adminWith(sources: RateLimitDecision['source'][]): RateLimitAdminService {
  const registry = new PolicyRegistry();
  registry.register(policy, 'test', true);
  const store = {
    kind: 'redis',
    scan: async () => ({
      keys: ['rl:{ip%3A10.0.0.1}:p:fixed-window', 'rl:{ip%3A10.0.0.2}:p:fixed-window'],
      cursor: null,
    }),
  } as unknown as RateLimitStore;
  const limiter = {
    peekTags: async () =>
      sources.map((source) => ({ policy: 'p', allowed: true, remaining: 5, resetMs: 0, source })),
  } as unknown as RateLimiterService;
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

describe('RateLimitAdminService keys listing', () => {
  it('lists what Redis answered', async () => {
    const page = await adminWith(['redis', 'redis']).keys('p', undefined, 100);
    expect(page.items.map((i) => i.identity)).toEqual(['ip:10.0.0.1', 'ip:10.0.0.2']);
  });

  it.each<RateLimitDecision['source']>(['memory', 'fail-open', 'fail-closed'])(
    'answers 503 rather than list usage a %s fallback made up',
    async (fallback) => {
      await expect(adminWith(['redis', fallback]).keys('p', undefined, 100)).rejects.toThrow(
        ServiceUnavailableException,
      );
    },
  );
});
