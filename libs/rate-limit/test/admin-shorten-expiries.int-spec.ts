import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { RateLimitConfig } from '../src/config/resolve-module-options';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { RATE_LIMIT_CONFIG, RATE_LIMIT_STORE } from '../src/rate-limit.constants';
import { PolicyRegistry } from '../src/registry/policy-registry';
import { ClientOverrides } from '../src/runtime/client-overrides/client-overrides.service';
import { RateLimiterService } from '../src/service/rate-limiter.service';
import { MemoryStore } from '../src/store/memory/memory-store';
import { RateLimitAdminModule } from '../src/admin/rate-limit-admin.module';
import { RateLimitAdminService } from '../src/admin/rate-limit-admin.service';

const TOKEN = 'unit-admin-token-0123456789abcdef';
const HOUR = 3_600_000;
const PRO = 'ip:198.51.100.1';
const PLAIN = 'ip:198.51.100.2';
const QUOTA = 'ip:1.2.3.4';
/**
 * Decisions at the start of a day to come: fixed windows are aligned, so a 1-hour window then
 * has its whole hour to run (its key lives an hour), whatever the time the test runs at.
 */
const AT = { nowMs: Math.ceil(Date.now() / (24 * HOUR)) * 24 * HOUR };

/**
 * Shortening a window re-tightens the expiries of the policy's state keys (shorten-expiries.ts),
 * but never below what a tier's clients need (they share the policy's keys), and not at all
 * while a client override may need its state longer.
 */
describe('re-tightening state keys after a window is shortened (memory store)', () => {
  let app: INestApplication;
  let store: MemoryStore;
  let admin: RateLimitAdminService;
  let limiter: RateLimiterService;

  /** Milliseconds to live of the identity's state key under the policy (-2 when missing). */
  const pttl = (name: string, identity: string): number => {
    const { keys } = app.get<RateLimitConfig>(RATE_LIMIT_CONFIG);
    const policy = app.get(PolicyRegistry).get(name)!;
    return store.keyspace.pttl(keys.stateKey(keys.identityTag(identity), policy));
  };

  beforeEach(async () => {
    store = new MemoryStore();
    const moduleRef = await Test.createTestingModule({
      imports: [
        RateLimitModule.forRoot({
          policies: [
            { name: 'tiered', limit: 5, window: '1m', tiers: { pro: { limit: 50, window: '1h' } } },
            { name: 'long', limit: 5, window: '1h' },
          ],
        }),
        RateLimitAdminModule.forRoot({ token: TOKEN }),
      ],
    })
      .overrideProvider(RATE_LIMIT_STORE)
      .useValue(store)
      .compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    admin = app.get(RateLimitAdminService);
    limiter = app.get(RateLimiterService);
  });
  afterEach(async () => {
    await app?.close();
  });

  it("keeps a tier client's key for the tier's window when the policy's window is shortened", async () => {
    expect((await limiter.consume('tiered', PRO, 1, { ...AT, tier: 'pro' })).allowed).toBe(true);
    expect((await limiter.consume('tiered', PLAIN, 1, AT)).allowed).toBe(true);
    expect(pttl('tiered', PRO)).toBeGreaterThan(HOUR - 60_000);

    await admin.update('tiered', { windowMs: 30_000 });

    // The tier still counts over an hour on the same key: cut to 30 s, it would forget it.
    expect(pttl('tiered', PRO)).toBeGreaterThan(HOUR - 60_000);
    expect((await limiter.peek('tiered', PRO, { ...AT, tier: 'pro' })).remaining).toBe(49);
  });

  it('re-tightens the keys when a tier PATCH shortens the only long lifetime', async () => {
    await limiter.consume('tiered', PRO, 1, { ...AT, tier: 'pro' });
    expect(pttl('tiered', PRO)).toBeGreaterThan(HOUR - 60_000);

    await admin.updateTier('tiered', 'pro', { windowMs: 60_000 });

    const left = pttl('tiered', PRO);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(60_000);
  });

  it('re-tightens the keys when a tier override that kept them long is cleared', async () => {
    await admin.updateTier('tiered', 'pro', { windowMs: 2 * HOUR });
    await limiter.consume('tiered', PRO, 1, { ...AT, tier: 'pro' });
    expect(pttl('tiered', PRO)).toBeGreaterThan(2 * HOUR - 60_000);

    await admin.clearTierOverride('tiered', 'pro');

    // Back to the tier's declared hour, the longest lifetime left.
    const left = pttl('tiered', PRO);
    expect(left).toBeGreaterThan(HOUR - 60_000);
    expect(left).toBeLessThanOrEqual(HOUR);
  });

  it('leaves the keys as they were while the policy has a client override', async () => {
    await app.get(ClientOverrides).set('long', QUOTA, {
      action: 'quota',
      limit: 10,
      windowMs: HOUR,
    });
    await limiter.consume('long', QUOTA, 1, AT);
    await limiter.consume('long', PLAIN, 1, AT);
    const before = [pttl('long', QUOTA), pttl('long', PLAIN)];
    for (const ms of before) expect(ms).toBeGreaterThan(HOUR - 60_000);

    await admin.update('long', { windowMs: 30_000 });

    // The quota's hour still counts on its key; each key moves at its client's next request.
    for (const [i, ms] of [pttl('long', QUOTA), pttl('long', PLAIN)].entries()) {
      expect(ms).toBeGreaterThan(before[i] - 5_000);
    }
    expect((await limiter.peek('long', QUOTA, AT)).remaining).toBe(9);
  });

  it('without client overrides, a shorter policy window re-tightens its keys at once', async () => {
    await limiter.consume('long', PLAIN, 1, AT);
    await admin.update('long', { windowMs: 30_000 });
    const left = pttl('long', PLAIN);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(30_000);
  });
});
