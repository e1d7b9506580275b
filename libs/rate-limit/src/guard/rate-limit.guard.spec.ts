import {
  Controller,
  Get,
  type ExecutionContext,
  type INestApplication,
  type Type,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RateLimitAdminService } from '../admin/rate-limit-admin.service';
import { PolicyKeys } from '../admin/policy-keys';
import { RateLimit } from '../decorators/rate-limit.decorator';
import { SkipRateLimit } from '../decorators/skip-rate-limit.decorator';
import type { RateLimitModuleOptions } from '../config/rate-limit-module-options.interface';
import { RateLimitModule } from '../module/rate-limit.module';
import { decodeKeyPart, encodeKeyPart } from '../keys/encode-key-part';
import { PolicyRegistry } from '../registry/policy-registry';
import { RateLimiterService } from '../service/rate-limiter.service';
import { UnknownPolicyError } from '../errors/unknown-policy.error';
import { RateLimitGuard } from './rate-limit.guard';

/** supertest reaches the app over loopback; the guard reports `::ffff:127.0.0.1` as IPv4. */
const LOCAL = 'ip:127.0.0.1';
const STANDARD_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];
const IETF_HEADERS = ['ratelimit-policy', 'ratelimit'];

async function createApp(
  controllers: Type[],
  options: RateLimitModuleOptions = {},
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RateLimitModule.forRoot(options)],
    controllers,
    providers: [
      { provide: APP_GUARD, useClass: RateLimitGuard },
      RateLimitAdminService,
      PolicyKeys,
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/** The bootstrap error of an app built from these controllers (fails the test if it boots). */
async function bootstrapError(
  controllers: Type[],
  options: RateLimitModuleOptions = {},
): Promise<Error> {
  let app: INestApplication | undefined;
  try {
    app = await createApp(controllers, options);
  } catch (error) {
    return error as Error;
  }
  await app.close();
  throw new Error(`expected ${controllers.map((c) => c.name).join(', ')} to fail at bootstrap`);
}

const units = (ctx: ExecutionContext): number =>
  Number(ctx.switchToHttp().getRequest<{ query: Record<string, unknown> }>().query.units ?? 1);

@Controller('basic')
class BasicController {
  @Get('two')
  @RateLimit({ name: 'two-per-10s', algo: 'sliding-window', limit: 2, window: '10s' })
  two() {
    return { ok: true };
  }

  @Get('unlimited')
  unlimited() {
    return { ok: true };
  }

  @Get('stacked')
  @RateLimit({ name: 'stacked-3', limit: 3, window: '1h' })
  @RateLimit({ name: 'stacked-2', limit: 2, window: '1h' })
  stacked() {
    return { ok: true };
  }

  @Get('api-key')
  @RateLimit({ name: 'per-api-key', limit: 1, window: '1h', key: 'api-key' })
  apiKey() {
    return { ok: true };
  }

  @Get('cost')
  @RateLimit({ name: 'costly', limit: 5, window: '1h', cost: units })
  cost() {
    return { ok: true };
  }

  @Get('shadow')
  @RateLimit({ name: 'shadowed', limit: 1, window: '1h', mode: 'shadow' })
  shadow() {
    return { ok: true };
  }

  @Get('shadow-and-enforce')
  @RateLimit({ name: 'shadow-1', limit: 1, window: '1h', mode: 'shadow' })
  @RateLimit({ name: 'enforce-3', limit: 3, window: '1h' })
  shadowAndEnforce() {
    return { ok: true };
  }

  @Get('blocked')
  @RateLimit({ name: 'penalty', algo: 'sliding-window', limit: 1, window: '1s', blockFor: '1m' })
  blocked() {
    return { ok: true };
  }
}

@Controller('class')
@RateLimit({ limit: 1, window: '1h' })
class ClassLimitedController {
  @Get('a')
  a() {
    return 'a';
  }

  @Get('b')
  b() {
    return 'b';
  }

  @Get('overridden')
  @RateLimit({ limit: 3, window: '1h' })
  overridden() {
    return 'overridden';
  }

  @Get('skipped')
  @SkipRateLimit()
  skipped() {
    return 'skipped';
  }

  /** Not a route: no policy may be registered for it. */
  format(value: string): string {
    return `<${value}>`;
  }
}

/** A base class with a class-level policy: controllers extending it inherit it. */
@RateLimit({ limit: 1, window: '1h' })
abstract class LimitedCrudBase {
  @Get('item')
  item() {
    return 'item';
  }
}

@Controller('derived')
class DerivedController extends LimitedCrudBase {}

@Controller('named')
@RateLimit({ name: 'named-override', limit: 1, window: '1h' })
class NamedOverrideController {
  @Get()
  @RateLimit({ name: 'named-override', limit: 3, window: '1h' })
  handler() {
    return 'named';
  }
}

@Controller('skipped-class')
@SkipRateLimit()
class SkippedController {
  @Get()
  @RateLimit({ name: 'never-applied', limit: 1, window: '1h' })
  handler() {
    return 'free';
  }
}

describe('RateLimitGuard with the memory store and standard headers', () => {
  let app: INestApplication;
  let limiter: RateLimiterService;
  const get = (path: string) => request(app.getHttpServer()).get(path);

  beforeAll(async () => {
    app = await createApp([
      BasicController,
      ClassLimitedController,
      NamedOverrideController,
      SkippedController,
      DerivedController,
    ]);
    limiter = app.get(RateLimiterService);
  });

  afterAll(async () => {
    await app?.close();
  });

  beforeEach(async () => {
    await limiter.reset('two-per-10s', LOCAL);
  });

  it('allows the limit, then answers 429 with headers and the JSON body', async () => {
    const first = await get('/basic/two').expect(200);
    expect(first.headers['ratelimit-limit']).toBe('2');
    expect(first.headers['ratelimit-remaining']).toBe('1');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(10);
    expect(first.headers['retry-after']).toBeUndefined();

    const second = await get('/basic/two').expect(200);
    expect(second.headers['ratelimit-remaining']).toBe('0');

    const third = await get('/basic/two').expect(429);
    expect(third.headers['ratelimit-limit']).toBe('2');
    expect(third.headers['ratelimit-remaining']).toBe('0');
    expect(Number(third.headers['ratelimit-reset'])).toBeGreaterThan(0);
    const retryAfter = Number(third.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(third.headers['content-type']).toMatch(/application\/json/);
    expect(third.body).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'two-per-10s',
      retryAfter,
    });
  });

  it('does not charge rejected requests, and counts the supertest client as ip:127.0.0.1', async () => {
    await get('/basic/two').expect(200);
    await get('/basic/two').expect(200);
    await get('/basic/two').expect(429);
    await get('/basic/two').expect(429);
    expect(await limiter.peek('two-per-10s', LOCAL)).toMatchObject({
      policy: 'two-per-10s',
      limit: 2,
      remaining: 0,
    });
    expect((await limiter.peek('two-per-10s', 'ip:10.0.0.1')).remaining).toBe(2);
    // Once the two admitted requests leave the window, the rejected ones left no trace.
    expect(
      (await limiter.peek('two-per-10s', LOCAL, { nowMs: Date.now() + 10_001 })).remaining,
    ).toBe(2);
  });

  it('leaves a handler without @RateLimit alone', async () => {
    const res = await get('/basic/unlimited').expect(200);
    for (const name of [...STANDARD_HEADERS, 'retry-after'])
      expect(res.headers[name]).toBeUndefined();
  });

  it('applies a class-level policy to every handler under its own <Controller>.<handler> name', async () => {
    await get('/class/a').expect(200);
    const rejected = await get('/class/a').expect(429);
    expect(rejected.body.policy).toBe('ClassLimitedController.a');

    const b = await get('/class/b').expect(200);
    expect(b.headers['ratelimit-limit']).toBe('1');
    expect((await get('/class/b').expect(429)).body.policy).toBe('ClassLimitedController.b');

    expect((await limiter.peek('ClassLimitedController.a', LOCAL)).remaining).toBe(0);
    expect((await limiter.peek('ClassLimitedController.b', LOCAL)).remaining).toBe(0);
  });

  it('decide() refuses one policy twice for one identity instead of checking both against one state', async () => {
    const policy = app.get(PolicyRegistry).get('stacked-2')!;
    const twice = [1, 2].map((cost) => ({ policy, identity: 'user:dup', cost }));
    await expect(limiter.decide(twice)).rejects.toThrow(/"stacked-2" appears twice/);
    expect((await limiter.peek('stacked-2', 'user:dup')).remaining).toBe(2);
  });

  it('reset() of an identity that reads like a listed hashed one leaves that one alone; the admin resetKey() clears it', async () => {
    // ip: identities are kept readable (not fingerprinted), so a long one is cut and hashed.
    const long = `ip:${'v'.repeat(120)}`;
    await limiter.consume('stacked-2', long);
    const listed = decodeKeyPart(encodeKeyPart(long));
    expect(listed).toMatch(/…\(sha256:/);
    await limiter.reset('stacked-2', listed);
    expect((await limiter.peek('stacked-2', long)).remaining).toBe(1);
    await app.get(RateLimitAdminService).resetKey('stacked-2', listed);
    expect((await limiter.peek('stacked-2', long)).remaining).toBe(2);
  });

  it('refuses a reset under an unknown policy, from code and from the admin alike', async () => {
    await expect(limiter.reset('nope', 'user:x')).rejects.toThrow(UnknownPolicyError);
    await expect(app.get(RateLimitAdminService).resetKey('nope', 'user:x')).rejects.toThrow(
      UnknownPolicyError,
    );
  });

  it('keys a user id by its fingerprint; reset() takes the raw id, the admin resetKey() the listed form', async () => {
    const admin = app.get(RateLimitAdminService);
    await limiter.consume('stacked-2', 'user:alice@example.com');
    const { items } = await admin.keys('stacked-2', undefined, 100);
    const listed = items.map((item) => item.identity).find((id) => id.startsWith('user:'))!;
    expect(listed).toMatch(/^user:\(hmac:[A-Za-z0-9_-]{22}\)$/);
    expect(JSON.stringify(items)).not.toContain('alice');
    // The listed form is not the identity: reset() of it is someone else.
    await limiter.reset('stacked-2', listed);
    expect((await limiter.peek('stacked-2', 'user:alice@example.com')).remaining).toBe(1);
    await app.get(RateLimitAdminService).resetKey('stacked-2', listed);
    expect((await limiter.peek('stacked-2', 'user:alice@example.com')).remaining).toBe(2);
    await limiter.consume('stacked-2', 'user:alice@example.com');
    await limiter.reset('stacked-2', 'user:alice@example.com');
    expect((await limiter.peek('stacked-2', 'user:alice@example.com')).remaining).toBe(2);
  });

  it("applies a base class's class-level policy to a controller that extends it", async () => {
    await get('/derived/item').expect(200);
    expect((await get('/derived/item').expect(429)).body.policy).toBe('DerivedController.item');
  });

  it('registers class-level policies for route handlers only, not for other methods', async () => {
    const names = app.get(PolicyRegistry).names();
    expect(names).toEqual(expect.arrayContaining(['ClassLimitedController.a']));
    expect(names).not.toContain('ClassLimitedController.format');
  });

  it('lets a handler-level policy of the same default name override the class-level one', async () => {
    for (const remaining of ['2', '1', '0']) {
      const res = await get('/class/overridden').expect(200);
      expect(res.headers['ratelimit-limit']).toBe('3');
      expect(res.headers['ratelimit-remaining']).toBe(remaining);
    }
    expect((await get('/class/overridden').expect(429)).body.policy).toBe(
      'ClassLimitedController.overridden',
    );
  });

  it('lets a handler-level policy override a class-level policy of the same explicit name', async () => {
    await get('/named').expect(200);
    await get('/named').expect(200);
    await get('/named').expect(200);
    expect((await get('/named').expect(429)).body.policy).toBe('named-override');
  });

  it('skips a handler marked @SkipRateLimit in a limited controller', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get('/class/skipped').expect(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('skips every handler of a controller marked @SkipRateLimit, even with its own @RateLimit', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get('/skipped-class').expect(200);
      expect(res.text).toBe('free');
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('with stacked policies charges none when one rejects, and reports the rejecting one', async () => {
    const first = await get('/basic/stacked').expect(200);
    // The headers describe the most restrictive policy: the 2-limit one.
    expect(first.headers['ratelimit-limit']).toBe('2');
    expect(first.headers['ratelimit-remaining']).toBe('1');
    await get('/basic/stacked').expect(200);

    const rejected = await get('/basic/stacked').expect(429);
    expect(rejected.body.policy).toBe('stacked-2');
    expect(rejected.headers['ratelimit-limit']).toBe('2');

    expect((await limiter.peek('stacked-3', LOCAL)).remaining).toBe(1);
    expect((await limiter.peek('stacked-2', LOCAL)).remaining).toBe(0);
    await get('/basic/stacked').expect(429);
    expect((await limiter.peek('stacked-3', LOCAL)).remaining).toBe(1);
  });

  it('with key api-key gives each X-Api-Key its own bucket and falls back to the IP', async () => {
    await get('/basic/api-key').set('X-Api-Key', 'alpha').expect(200);
    expect((await get('/basic/api-key').set('X-Api-Key', 'alpha').expect(429)).body.policy).toBe(
      'per-api-key',
    );
    await get('/basic/api-key').set('X-Api-Key', 'beta').expect(200);
    await get('/basic/api-key').set('X-Api-Key', 'beta').expect(429);

    await get('/basic/api-key').expect(200);
    await get('/basic/api-key').expect(429);

    expect((await limiter.peek('per-api-key', 'key:alpha')).remaining).toBe(0);
    expect((await limiter.peek('per-api-key', 'key:beta')).remaining).toBe(0);
    expect((await limiter.peek('per-api-key', LOCAL)).remaining).toBe(0);
    expect((await limiter.peek('per-api-key', 'key:gamma')).remaining).toBe(1);
    await get('/basic/api-key').set('X-Api-Key', 'gamma').expect(200);
  });

  it('charges what a cost function returns', async () => {
    const first = await get('/basic/cost?units=3').expect(200);
    expect(first.headers['ratelimit-remaining']).toBe('2');
    const tooMuch = await get('/basic/cost?units=3').expect(429);
    expect(tooMuch.headers['ratelimit-remaining']).toBe('2');
    const rest = await get('/basic/cost?units=2').expect(200);
    expect(rest.headers['ratelimit-remaining']).toBe('0');
    await get('/basic/cost').expect(429);
    expect((await limiter.peek('costly', LOCAL)).remaining).toBe(0);
  });

  it('fails a request whose cost function returns no positive integer instead of letting it through', async () => {
    await get('/basic/cost?units=0').expect(500);
    await get('/basic/cost?units=1.5').expect(500);
  });

  it('lets a shadow policy report over-limit requests without rejecting them', async () => {
    const first = await get('/basic/shadow').expect(200);
    expect(first.headers['ratelimit-remaining']).toBe('0');
    for (let i = 0; i < 3; i++) {
      const over = await get('/basic/shadow').expect(200);
      expect(over.headers['ratelimit-limit']).toBe('1');
      expect(over.headers['ratelimit-remaining']).toBe('0');
      expect(over.headers['retry-after']).toBeUndefined();
    }
    const decision = await limiter.peek('shadowed', LOCAL);
    expect(decision).toMatchObject({ shadow: true, remaining: 0 });
  });

  it('does not let a shadow policy stop an enforced one from charging or rejecting', async () => {
    await get('/basic/shadow-and-enforce').expect(200);
    await get('/basic/shadow-and-enforce').expect(200);
    await get('/basic/shadow-and-enforce').expect(200);
    const rejected = await get('/basic/shadow-and-enforce').expect(429);
    expect(rejected.body.policy).toBe('enforce-3');
  });

  it('answers 429 with the blockFor penalty as Retry-After', async () => {
    await get('/basic/blocked').expect(200);
    const rejected = await get('/basic/blocked').expect(429);
    expect(Number(rejected.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    expect(Number(rejected.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(rejected.body).toMatchObject({
      policy: 'penalty',
      retryAfter: Number(rejected.headers['retry-after']),
    });
  });

  it('keeps a blocked identity rejected after its window would have allowed again', async () => {
    const identity = 'ip:198.51.100.9';
    const t0 = Date.now();
    expect(await limiter.consume('penalty', identity, 1, { nowMs: t0 })).toMatchObject({
      allowed: true,
    });

    const over = await limiter.consume('penalty', identity, 1, { nowMs: t0 + 10 });
    expect(over).toMatchObject({ allowed: false, reason: 'limit' });
    expect(over.retryAfterMs).toBeGreaterThanOrEqual(60_000);

    for (const later of [1_500, 5_000, 60_000]) {
      const blocked = await limiter.consume('penalty', identity, 1, { nowMs: t0 + 10 + later - 1 });
      expect(blocked).toMatchObject({ allowed: false, reason: 'blocked' });
      expect(blocked.retryAfterMs).toBeGreaterThan(0);
    }
    // Without blockFor the new window would have admitted it; once the penalty is over it does.
    expect(await limiter.consume('penalty', identity, 1, { nowMs: t0 + 60_011 })).toMatchObject({
      allowed: true,
    });
  });
});

@Controller('proxied')
class ProxiedController {
  @Get('route')
  @RateLimit({ name: 'whole-route', limit: 2, window: '1h', key: 'route' })
  route() {
    return { ok: true };
  }

  @Get('ip')
  @RateLimit({ name: 'per-ip', limit: 1, window: '1h' })
  ip() {
    return { ok: true };
  }
}

describe('RateLimitGuard behind a trusted proxy', () => {
  let app: INestApplication;
  const get = (path: string, client: string) =>
    request(app.getHttpServer()).get(path).set('X-Forwarded-For', client);

  beforeAll(async () => {
    app = await createApp([ProxiedController], { trustProxy: true });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('buckets key ip by the forwarded client address', async () => {
    await get('/proxied/ip', '203.0.113.1').expect(200);
    await get('/proxied/ip', '203.0.113.1').expect(429);
    await get('/proxied/ip', '203.0.113.2').expect(200);
    const limiter = app.get(RateLimiterService);
    expect((await limiter.peek('per-ip', 'ip:203.0.113.1')).remaining).toBe(0);
    expect((await limiter.peek('per-ip', 'ip:203.0.113.2')).remaining).toBe(0);
    expect((await limiter.peek('per-ip', LOCAL)).remaining).toBe(1);
  });

  it('with key route shares one bucket across clients', async () => {
    await get('/proxied/route', '198.51.100.1').expect(200);
    await get('/proxied/route', '198.51.100.2').expect(200);
    const rejected = await get('/proxied/route', '198.51.100.3').expect(429);
    expect(rejected.body.policy).toBe('whole-route');
    expect(
      (await app.get(RateLimiterService).peek('whole-route', 'route:whole-route')).remaining,
    ).toBe(0);
  });
});

const identityCalls = { sync: 0, async: 0 };

@Controller('keyed-by-function')
class FunctionKeyController {
  // Order matters to the guard: a promise in the middle of synchronous resolvers.
  @Get()
  @RateLimit({ name: 'fn-first-ip', limit: 3, window: '1h' })
  @RateLimit({
    name: 'fn-async',
    limit: 2,
    window: '1h',
    key: async (ctx) => {
      identityCalls.async++;
      return Promise.resolve(String(ctx.switchToHttp().getRequest().headers['x-tenant']));
    },
  })
  @RateLimit({
    name: 'fn-sync',
    limit: 5,
    window: '1h',
    key: (ctx) => {
      identityCalls.sync++;
      return `sync-${String(ctx.switchToHttp().getRequest().headers['x-tenant'])}`;
    },
  })
  handler() {
    return { ok: true };
  }
}

describe('RateLimitGuard with key functions', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([FunctionKeyController]);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('charges synchronous and asynchronous key functions once per request each', async () => {
    const get = (tenant: string) =>
      request(app.getHttpServer()).get('/keyed-by-function').set('X-Tenant', tenant);
    await get('a').expect(200);
    await get('a').expect(200);
    const rejected = await get('a').expect(429);
    expect(rejected.body.policy).toBe('fn-async');
    await get('b').expect(200);
    expect(identityCalls).toEqual({ sync: 4, async: 4 });
    const limiter = app.get(RateLimiterService);
    expect((await limiter.peek('fn-async', 'fn:a')).remaining).toBe(0);
    expect((await limiter.peek('fn-async', 'fn:b')).remaining).toBe(1);
    // The rejected request charged nobody: all-or-nothing across the three identities.
    expect((await limiter.peek('fn-sync', 'fn:sync-a')).remaining).toBe(3);
    expect((await limiter.peek('fn-first-ip', LOCAL)).remaining).toBe(0);
  });
});

@Controller('styled')
class StyledController {
  @Get()
  @RateLimit({ name: 'styled', algo: 'sliding-window', limit: 1, window: '10s' })
  handler() {
    return { ok: true };
  }
}

describe('RateLimitGuard with headers: ietf-draft', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([StyledController], { headers: 'ietf-draft' });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('emits RateLimit-Policy and RateLimit instead of RateLimit-Limit/-Remaining/-Reset', async () => {
    const ok = await request(app.getHttpServer()).get('/styled').expect(200);
    expect(ok.headers['ratelimit-policy']).toBe('"styled";q=1');
    expect(ok.headers['ratelimit']).toMatch(/^"styled";r=0;t=([1-9]|10)$/);
    for (const name of STANDARD_HEADERS) expect(ok.headers[name]).toBeUndefined();

    const rejected = await request(app.getHttpServer()).get('/styled').expect(429);
    expect(rejected.headers['ratelimit-policy']).toBe('"styled";q=1');
    expect(Number(rejected.headers['retry-after'])).toBeGreaterThan(0);
    for (const name of STANDARD_HEADERS) expect(rejected.headers[name]).toBeUndefined();
  });
});

@Controller('defaults')
class DefaultsController {
  @Get('one')
  one() {
    return 'one';
  }

  @Get('two')
  two() {
    return 'two';
  }

  @Get('own')
  @RateLimit({ limit: 5, window: '1h' })
  own() {
    return 'own';
  }
}

describe('RateLimitGuard with a defaultPolicy', () => {
  const statuses = async (app: INestApplication, paths: string[]) => {
    const seen: (number | string)[] = [];
    for (const path of paths) {
      const res = await request(app.getHttpServer()).get(path);
      seen.push(res.status === 429 ? res.body.policy : res.status);
    }
    return seen;
  };

  it('with a name, shares one budget among the handlers it covers', async () => {
    const app = await createApp([DefaultsController], {
      defaultPolicy: { name: 'global', limit: 2, window: '1h' },
    });
    try {
      expect(
        await statuses(app, ['/defaults/one', '/defaults/two', '/defaults/one', '/defaults/own']),
      ).toEqual([200, 200, 'global', 200]);
    } finally {
      await app.close();
    }
  });

  it('without a name, gives each handler its own <Controller>.<handler> budget', async () => {
    const app = await createApp([DefaultsController], {
      defaultPolicy: { limit: 2, window: '1h' },
    });
    try {
      expect(
        await statuses(app, ['/defaults/one', '/defaults/two', '/defaults/one', '/defaults/one']),
      ).toEqual([200, 200, 200, 'DefaultsController.one']);
    } finally {
      await app.close();
    }
  });
});

describe('RateLimitGuard with headers: none', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([StyledController], { headers: 'none' });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('emits no rate limit headers, but still Retry-After on a 429', async () => {
    const ok = await request(app.getHttpServer()).get('/styled').expect(200);
    for (const name of [...STANDARD_HEADERS, ...IETF_HEADERS, 'retry-after'])
      expect(ok.headers[name]).toBeUndefined();

    const rejected = await request(app.getHttpServer()).get('/styled').expect(429);
    for (const name of [...STANDARD_HEADERS, ...IETF_HEADERS])
      expect(rejected.headers[name]).toBeUndefined();
    const retryAfter = Number(rejected.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(rejected.body).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'styled',
      retryAfter,
    });
  });
});

describe('RateLimitGuard bootstrap validation', () => {
  it('rejects a zero limit, naming the handler and "limit"', async () => {
    @Controller()
    class ZeroLimitController {
      @Get()
      @RateLimit({ limit: 0, window: '1s' })
      handler() {}
    }
    const error = await bootstrapError([ZeroLimitController]);
    expect(error.message).toContain('ZeroLimitController.handler');
    expect(error.message).toContain('"limit"');
  });

  it('rejects a bad window, naming the handler and "window"', async () => {
    @Controller()
    class BadWindowController {
      @Get()
      @RateLimit({ limit: 5, window: '10 parsecs' })
      list() {}
    }
    const error = await bootstrapError([BadWindowController]);
    expect(error.message).toContain('BadWindowController.list');
    expect(error.message).toContain('"window"');
  });

  it('rejects a bad class-level policy, naming the handler it applies to', async () => {
    @Controller()
    @RateLimit({ limit: 5, window: -1 })
    class BadClassController {
      @Get()
      index() {}
    }
    const error = await bootstrapError([BadClassController]);
    expect(error.message).toContain('BadClassController.index');
    expect(error.message).toContain('"window"');
  });

  it('rejects two unnamed @RateLimit on one handler', async () => {
    @Controller()
    class TwinController {
      @Get()
      @RateLimit({ limit: 5, window: '1s' })
      @RateLimit({ limit: 50, window: '1m' })
      handler() {}
    }
    const error = await bootstrapError([TwinController]);
    expect(error.message).toContain('TwinController.handler');
    expect(error.message).toContain('"name"');
  });

  it('rejects same-named policies with different options on two handlers', async () => {
    @Controller()
    class ConflictController {
      @Get('one')
      @RateLimit({ name: 'shared', limit: 5, window: '1m' })
      one() {}

      @Get('two')
      @RateLimit({ name: 'shared', limit: 6, window: '1m' })
      two() {}
    }
    const error = await bootstrapError([ConflictController]);
    expect(error.message).toContain('ConflictController.two');
    expect(error.message).toContain('ConflictController.one');
    expect(error.message).toContain('"limit"');
  });

  it('accepts same-named policies with the same options on two handlers', async () => {
    @Controller()
    class SharedController {
      @Get('one')
      @RateLimit({ name: 'shared-ok', limit: 5, window: '1m' })
      one() {}

      @Get('two')
      @RateLimit({ name: 'shared-ok', limit: 5, window: 60_000 })
      two() {}
    }
    const app = await createApp([SharedController]);
    await app.close();
  });

  it('rejects an unknown key source, naming the handler and "key"', async () => {
    @Controller()
    class BadKeyController {
      @Get()
      @RateLimit({ limit: 5, window: '1s', key: 'cookie' as never })
      handler() {}
    }
    const error = await bootstrapError([BadKeyController]);
    expect(error.message).toContain('BadKeyController.handler');
    expect(error.message).toContain('"key"');
  });

  it('rejects a bad module option, naming it', async () => {
    const error = await bootstrapError([StyledController], { headers: 'fancy' as never });
    expect(error.message).toContain('RateLimitModule options');
    expect(error.message).toContain('"headers"');
  });
});
