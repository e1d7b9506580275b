/**
 * Resets by code (RateLimiterService) and by operators (the admin service) of identities the
 * keys listing shows in another form than the one requests are counted under: a long address
 * cut and hashed, a user id fingerprinted. The module booted on the memory store.
 */
import type { INestApplication } from '@nestjs/common';
import { PolicyKeys } from '../src/admin/policy-keys';
import { ADMIN_PLANE_PROVIDERS } from '../src/admin/admin-plane.providers';
import { RateLimitAdminService } from '../src/admin/rate-limit-admin.service';
import { UnknownPolicyError } from '../src/errors/unknown-policy.error';
import { decodeKeyPart, encodeKeyPart } from '../src/keys/encode-key-part';
import { PolicyRegistry } from '../src/registry/policy-registry';
import { RateLimiterService } from '../src/service/rate-limiter.service';
import { bootApp } from './support/boot-app';
import { windowWithoutBoundary } from './support/window-headroom';

describe('resets of listed identities', () => {
  let app: INestApplication;
  let limiter: RateLimiterService;
  let admin: RateLimitAdminService;

  beforeAll(async () => {
    app = await bootApp({
      providers: [...ADMIN_PLANE_PROVIDERS, RateLimitAdminService, PolicyKeys],
      // A fixed window that does not end during the test, wherever the clock is.
      options: { policies: [{ name: 'stacked-2', limit: 2, window: windowWithoutBoundary() }] },
    });
    limiter = app.get(RateLimiterService);
    admin = app.get(RateLimitAdminService);
  });
  afterAll(async () => {
    await app?.close();
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
    await admin.resetKey('stacked-2', listed);
    expect((await limiter.peek('stacked-2', long)).remaining).toBe(2);
  });

  it('refuses a reset under an unknown policy, from code and from the admin alike', async () => {
    await expect(limiter.reset('nope', 'user:x')).rejects.toThrow(UnknownPolicyError);
    await expect(admin.resetKey('nope', 'user:x')).rejects.toThrow(UnknownPolicyError);
  });

  it('keys a user id by its fingerprint; reset() takes the raw id, the admin resetKey() the listed form', async () => {
    await limiter.consume('stacked-2', 'user:alice@example.com');
    const { items } = await admin.keys('stacked-2', undefined, 100);
    const listed = items.map((item) => item.identity).find((id) => id.startsWith('user:'))!;
    expect(listed).toMatch(/^user:\(hmac:[A-Za-z0-9_-]{22}\)$/);
    expect(JSON.stringify(items)).not.toContain('alice');
    // The listed form is not the identity: reset() of it is someone else.
    await limiter.reset('stacked-2', listed);
    expect((await limiter.peek('stacked-2', 'user:alice@example.com')).remaining).toBe(1);
    await admin.resetKey('stacked-2', listed);
    expect((await limiter.peek('stacked-2', 'user:alice@example.com')).remaining).toBe(2);
    await limiter.consume('stacked-2', 'user:alice@example.com');
    await limiter.reset('stacked-2', 'user:alice@example.com');
    expect((await limiter.peek('stacked-2', 'user:alice@example.com')).remaining).toBe(2);
  });
});
