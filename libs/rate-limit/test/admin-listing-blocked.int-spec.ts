import { Test, type TestingModule } from '@nestjs/testing';
import { ADMIN_PLANE_PROVIDERS } from '../src/admin/admin-plane.providers';
import { RateLimitAdminService } from '../src/admin/rate-limit-admin.service';
import { PolicyKeys } from '../src/admin/policy-keys';
import { RateLimitModule } from '../src/module/rate-limit.module';
import type { RateLimitModuleOptions } from '../src/config/rate-limit-module-options.interface';
import { RATE_LIMIT_STORE } from '../src/rate-limit.constants';
import { RateLimiterService } from '../src/service/rate-limiter.service';
import type { RateLimitStore } from '../src/store/rate-limit-store.interface';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { within } from './support/within';

/**
 * The admin listing shows every client an operator may need to unblock: a client blocked by
 * `blockFor` stays listed (with the block's time left) after its window, and so its state key,
 * has gone; it once vanished from the listing although it was still refused.
 */
// A sliding log: two requests a moment apart are always in one window (a fixed window's
// boundary could fall between them).
const WINDOW_MS = 1_000;
const POLICY = {
  name: 'login',
  algo: 'sliding-window' as const,
  limit: 1,
  window: WINDOW_MS,
  blockFor: '1h',
};

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(() => redis.close());

const stores: [string, () => Partial<RateLimitModuleOptions>][] = [
  ['redis', () => ({ redis: redis.url })],
  ['memory', () => ({})],
];

describe.each(stores)('listing blocked clients: %s store', (_name, storeOptions) => {
  let moduleRef: TestingModule;
  let admin: RateLimitAdminService;
  let limiter: RateLimiterService;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        RateLimitModule.forRoot({
          ...storeOptions(),
          keyPrefix: uniquePrefix(),
          commandTimeoutMs: 2_000,
          policies: [POLICY, { ...POLICY, name: 'other', blockFor: undefined }],
        }),
      ],
      providers: [...ADMIN_PLANE_PROVIDERS, RateLimitAdminService, PolicyKeys],
    }).compile();
    await moduleRef.init();
    admin = moduleRef.get(RateLimitAdminService);
    limiter = moduleRef.get(RateLimiterService);
  });
  afterEach(() => moduleRef.close());

  const listAll = async (first?: string) => {
    const items = [];
    let cursor: string | undefined = first;
    do {
      const page = await admin.keys('login', cursor, 10);
      items.push(...page.items);
      cursor = page.cursor ?? undefined;
    } while (cursor !== undefined);
    return items;
  };

  it('a client blocked past its window is listed with the time left of its block, once', async () => {
    const blocked = 'ip:198.51.100.1';
    expect((await limiter.consume('login', blocked)).allowed).toBe(true);
    expect((await limiter.consume('login', blocked)).allowed).toBe(false); // starts the block
    for (let i = 0; i < 25; i++) await limiter.consume('login', `ip:198.51.100.${10 + i}`);
    await limiter.consume('other', 'ip:198.51.100.99');

    // While both its keys exist: listed once, blocked.
    const during = (await listAll()).filter((item) => item.identity === blocked);
    expect(during).toHaveLength(1);
    expect(during[0].blockedMs).toBeGreaterThan(3_590_000);

    // The windows end, so the state keys expire; the block key stays for an hour.
    const store = moduleRef.get<RateLimitStore>(RATE_LIMIT_STORE);
    const stateKeys = async () => (await store.scan('*}:login:sw', null, 1_000)).keys;
    await within(5 * WINDOW_MS, async () => (await stateKeys()).length === 0);

    const after = await listAll();
    const item = after.find((i) => i.identity === blocked);
    expect(item).toMatchObject({ remaining: 0 });
    expect(item!.blockedMs).toBeGreaterThan(3_590_000);
    expect(after.filter((i) => i.identity === blocked)).toHaveLength(1);
    // The others' windows ended too: nothing to list for them; 'other' is another policy.
    expect(after.map((i) => i.identity)).toEqual([blocked]);

    await admin.resetKey('login', blocked);
    expect(await listAll()).toEqual([]);
    expect((await limiter.consume('login', blocked)).allowed).toBe(true);
  });

  it('cursor 0 starts at the beginning, as no cursor does', async () => {
    for (let i = 0; i < 15; i++) await limiter.consume('login', `ip:198.51.100.${i}`);
    const fromZero = await listAll('0');
    const fromNone = await listAll();
    expect(fromZero).toHaveLength(15);
    expect(new Set(fromZero.map((i) => i.identity))).toEqual(
      new Set(fromNone.map((i) => i.identity)),
    );
  });

  it('an unblocked client in its window lists blockedMs 0', async () => {
    await limiter.consume('login', 'ip:198.51.100.7');
    const [item] = await listAll();
    expect(item).toMatchObject({ identity: 'ip:198.51.100.7', used: 1, blockedMs: 0 });
  });
});
