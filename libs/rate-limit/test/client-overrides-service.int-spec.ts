import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DecisionEngine } from '../src/engine/decision-engine';
import { InvalidPolicyChangeError } from '../src/errors/invalid-policy-change.error';
import { UncertainWriteError } from '../src/errors/uncertain-write.error';
import { UnknownPolicyError } from '../src/errors/unknown-policy.error';
import { RateLimitModule } from '../src/module/rate-limit.module';
import {
  RATE_LIMIT_CLIENT_OVERRIDES,
  RATE_LIMIT_CONFIG,
  RATE_LIMIT_STORE,
} from '../src/rate-limit.constants';
import type { RateLimitConfig } from '../src/config/resolve-module-options';
import { RateLimiterService } from '../src/service/rate-limiter.service';
import { MemoryStore } from '../src/store/memory/memory-store';
import type { ClientOverrideIndex } from '../src/runtime/client-overrides/client-override-index';
import { ClientOverrides } from '../src/runtime/client-overrides/client-overrides.service';
import { windowWithoutBoundary } from './support/window-headroom';

/** Fixed windows that do not end during a test (a new one would admit a client again). */
const WINDOW = windowWithoutBoundary();
const IP = 'ip:203.0.113.7';
const USER = 'user:alice@example.com';

describe('ClientOverrides on the memory store', () => {
  let app: INestApplication;
  let overrides: ClientOverrides;
  let limiter: RateLimiterService;
  let engine: DecisionEngine;
  /** The store's clock for expiries; the service validates expiries against Date.now(). */
  let nowMs: number;

  beforeEach(async () => {
    nowMs = Date.now();
    const moduleRef = await Test.createTestingModule({
      imports: [
        RateLimitModule.forRoot({
          policies: [
            { name: 'api', limit: 2, window: WINDOW },
            { name: 'other', limit: 2, window: WINDOW },
          ],
        }),
      ],
    })
      .overrideProvider(RATE_LIMIT_STORE)
      .useValue(new MemoryStore({ clockMs: () => nowMs }))
      .compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    overrides = app.get(ClientOverrides);
    limiter = app.get(RateLimiterService);
    engine = app.get(DecisionEngine);
  });

  afterEach(async () => {
    await app?.close();
  });

  it('sets an override and answers its record, with the identity as listed', async () => {
    const before = Date.now();
    const record = await overrides.set('api', IP, { action: 'deny', message: 'Go away' });
    expect(record).toEqual({
      action: 'deny',
      message: 'Go away',
      identity: IP,
      updatedAt: expect.any(Number),
    });
    expect(record.updatedAt).toBeGreaterThanOrEqual(before);
    expect(record.updatedAt).toBeLessThanOrEqual(Date.now());
  });

  it('lists a hashed identity by its fingerprint, keeping no undefined field', async () => {
    const record = await overrides.set('api', USER, { action: 'quota', limit: 5 });
    expect(record.identity).toMatch(/^user:\(hmac:[A-Za-z0-9_-]{22}\)$/);
    expect(JSON.stringify(record)).not.toContain('alice');
    expect(Object.keys(record).sort()).toEqual(['action', 'identity', 'limit', 'updatedAt']);
  });

  it('turns on the reading of override keys with its first set, not before', async () => {
    const config = app.get<RateLimitConfig>(RATE_LIMIT_CONFIG);
    expect(config.keys.clientOverridesInUse).toBe(false);
    await overrides.set('api', IP, { action: 'deny' });
    expect(config.keys.clientOverridesInUse).toBe(true);
  });

  it('gets, lists and removes what it set (the memory store reports its override keys)', async () => {
    await overrides.set('api', IP, { action: 'allow' });
    expect(await overrides.get('api', IP)).toMatchObject({ identity: IP, action: 'allow' });
    expect((await overrides.list('api', null, 10)).items.map((r) => r.identity)).toEqual([IP]);
    expect(await overrides.remove('api', IP)).toBe(true);
    expect(await overrides.get('api', IP)).toBeUndefined();
    expect(await overrides.remove('api', IP)).toBe(false);
  });

  it('applies a deny to decisions at once, to that client and policy only, until removed', async () => {
    await overrides.set('api', IP, { action: 'deny', message: 'Suspended' });
    expect(await limiter.consume('api', IP)).toMatchObject({
      allowed: false,
      reason: 'denied',
      message: 'Suspended',
      retryAfterMs: 0,
    });
    expect((await limiter.consume('api', 'ip:203.0.113.8')).allowed).toBe(true);
    expect((await limiter.consume('other', IP)).allowed).toBe(true);
    await overrides.remove('api', IP);
    expect(await limiter.consume('api', IP)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('tells whether the policy has any client override', async () => {
    expect(await overrides.any('api')).toBe(false);
    await overrides.set('api', IP, { action: 'allow' });
    expect(await overrides.any('api')).toBe(true);
    expect(await overrides.any('other')).toBe(false);
    await overrides.remove('api', IP);
    expect(await overrides.any('api')).toBe(false);
  });

  it('lets an allow client past its limit, and a later set replace it', async () => {
    await overrides.set('api', IP, { action: 'allow' });
    for (let i = 0; i < 4; i++) expect((await limiter.consume('api', IP)).allowed).toBe(true);
    await overrides.set('api', IP, { action: 'deny' });
    expect(await limiter.consume('api', IP)).toMatchObject({ allowed: false, reason: 'denied' });
  });

  it("decides a quota client on the quota's thresholds", async () => {
    await overrides.set('api', IP, { action: 'quota', limit: 3 });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('api', IP));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
  });

  it("lets an override expire at its time on the store's clock", async () => {
    const expiresAt = Date.now() + 60_000;
    const record = await overrides.set('api', IP, { action: 'deny', expiresAt });
    expect(record.expiresAt).toBe(expiresAt);
    nowMs = expiresAt - 1;
    expect((await limiter.consume('api', IP)).reason).toBe('denied');
    nowMs = expiresAt;
    expect((await limiter.consume('api', IP)).allowed).toBe(true);
  });

  it('refuses an invalid override with every problem, writing nothing', async () => {
    const error = await overrides
      .set('api', IP, { action: 'allow', limit: 0, message: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPolicyChangeError);
    expect((error as InvalidPolicyChangeError).problems).toEqual([
      "limit is only for action 'quota'",
      "message is only for action 'deny'",
    ]);
    expect(await overrides.get('api', IP)).toBeUndefined();
    expect((await limiter.consume('api', IP)).allowed).toBe(true);
  });

  it('refuses every call under an unknown policy', async () => {
    await expect(overrides.set('nope', IP, { action: 'allow' })).rejects.toThrow(
      new UnknownPolicyError('nope'),
    );
    await expect(overrides.get('nope', IP)).rejects.toThrow(UnknownPolicyError);
    await expect(overrides.remove('nope', IP)).rejects.toThrow(UnknownPolicyError);
    await expect(overrides.list('nope', null, 10)).rejects.toThrow(UnknownPolicyError);
  });

  it('forgets remembered rejections when an override is set or removed', async () => {
    const forget = jest.spyOn(engine, 'forgetRejections');
    await overrides.set('api', IP, { action: 'allow' });
    expect(forget).toHaveBeenCalled();
    forget.mockClear();
    await overrides.remove('api', IP);
    expect(forget).toHaveBeenCalled();
    forget.mockClear();
    await overrides.get('api', IP);
    await overrides.list('api', null, 10);
    expect(forget).not.toHaveBeenCalled();
  });
});

describe('ClientOverrides when the index fails (memory store)', () => {
  let app: INestApplication;
  let overrides: ClientOverrides;
  let limiter: RateLimiterService;
  const down = () => Promise.reject(new Error('index unavailable'));
  /** Every method rejects unless a test makes it answer. */
  const index: jest.Mocked<ClientOverrideIndex> = {
    put: jest.fn(),
    remove: jest.fn(),
    get: jest.fn(),
    count: jest.fn(),
    page: jest.fn(),
  };

  beforeEach(async () => {
    for (const method of Object.values(index)) method.mockReset().mockImplementation(down);
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimitModule.forRoot({ policies: [{ name: 'api', limit: 2, window: WINDOW }] })],
    })
      .overrideProvider(RATE_LIMIT_CLIENT_OVERRIDES)
      .useValue(index)
      .compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    overrides = app.get(ClientOverrides);
    limiter = app.get(RateLimiterService);
  });

  afterEach(async () => {
    await app?.close();
  });

  it('set: an uncertain write when the listing fails, the override being in force', async () => {
    const error = await overrides
      .set('api', IP, { action: 'deny', message: 'Suspended' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UncertainWriteError);
    expect((error as Error).message).toContain('index unavailable');
    expect(index.put).toHaveBeenCalled();
    expect(await limiter.consume('api', IP)).toMatchObject({ allowed: false, reason: 'denied' });
  });

  it("remove: decided by the client's key alone, whatever the listing's read answers", async () => {
    await overrides.set('api', IP, { action: 'deny' }).catch(() => undefined);
    index.remove.mockResolvedValue(undefined);
    // The listing is read only for the audit log's "before": failing, it changes nothing.
    expect(await overrides.remove('api', IP)).toBe(true);
    expect((await limiter.consume('api', IP)).allowed).toBe(true);
    // Listing a record of a client whose key is gone: not an override to remove.
    index.get.mockResolvedValue({ identity: 'ip:203.0.113.7', action: 'deny', updatedAt: 1 });
    expect(await overrides.remove('api', IP)).toBe(false);
  });

  it('remove: the override is gone even when the listing cannot be updated', async () => {
    await overrides.set('api', IP, { action: 'deny' }).catch(() => undefined);
    // The removal stands (the listing drops the entry when next read, its key being gone).
    expect(await overrides.remove('api', IP)).toBe(true);
    expect(index.remove).toHaveBeenCalled();
    expect((await limiter.consume('api', IP)).allowed).toBe(true);
  });
});
