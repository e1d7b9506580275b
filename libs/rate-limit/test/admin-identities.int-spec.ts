import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { RateLimitGuard } from '../src/guard/rate-limit.guard';
import type { RateLimitModuleOptions } from '../src/config/rate-limit-module-options.interface';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { RateLimitAdminModule } from '../src/admin/rate-limit-admin.module';

/**
 * Identities as operators type them into the admin API (client overrides, key resets): an
 * address spelled otherwise than the limiter keys it is brought to the limiter's form, so the
 * override or reset reaches the client it names, or refused with 400; never stored where it
 * cannot match. Clients are told apart by X-Forwarded-For (supertest comes from loopback).
 */
const TOKEN = 'unit-admin-token-0123456789abcdef';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const FORMS = 'ip:203.0.113.7 or ip:2001:db8:0:0::/64';

@Controller('api')
class ApiController {
  @Get('limited')
  @RateLimit({ name: 'api.limited', algo: 'sliding-window', limit: 2, window: '1h' })
  limited() {
    return 'ok';
  }
}

describe.each<[string, RateLimitModuleOptions]>([
  ['addresses in clear', { trustProxy: 'loopback' }],
  [
    'addresses hashed (identityHashing.ips)',
    { trustProxy: 'loopback', identityHashing: { ips: true } },
  ],
])('identities typed into the admin API, %s', (_label, options) => {
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  const clientUrl = (identity: string) =>
    `/admin/policies/api.limited/clients/${encodeURIComponent(identity)}`;
  const keyUrl = (identity: string) =>
    `/admin/policies/api.limited/keys/${encodeURIComponent(identity)}`;
  const from = (address: string) => http().get('/api/limited').set('X-Forwarded-For', address);
  const listed = async () =>
    (await http().get('/admin/policies/api.limited/clients').set(AUTH).expect(200)).body.items;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimitModule.forRoot(options), RateLimitAdminModule.forRoot({ token: TOKEN })],
      controllers: [ApiController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterEach(async () => {
    await app?.close();
  });

  const V6 = 'ip:2001:db8:0:0::/64';
  const V4 = 'ip:203.0.113.7';
  /** How the override is listed: the limiter's form, or its fingerprint when addresses are hashed. */
  const listedAs = (meant: string) =>
    options.identityHashing ? expect.stringMatching(/^ip:\(hmac:[A-Za-z0-9_-]{22}\)$/) : meant;

  it.each([
    ['a full IPv6 address', 'ip:2001:db8::1', V6, '2001:db8::1'],
    ['an uppercase IPv6 address', 'ip:2001:DB8::1', V6, '2001:db8::77'],
    ['a /64 in short form', 'ip:2001:db8::/64', V6, '2001:db8::abcd'],
    ['the limiter’s own /64', V6, V6, '2001:db8::1'],
    ['an IPv4-mapped address', 'ip:::ffff:203.0.113.7', V4, '203.0.113.7'],
    ['the kind in capitals', 'IP:203.0.113.7', V4, '203.0.113.7'],
  ])(
    'a deny for %s (%j) is %j: it rejects the client at %s',
    async (_what, typed, meant, address) => {
      const set = await http().put(clientUrl(typed)).set(AUTH).send({ action: 'deny' });
      expect(set.status).toBe(200);
      expect(set.body.identity).toEqual(listedAs(meant));
      const denied = await from(address);
      expect(denied.status).toBe(429);
      expect(denied.body.message).toBe('Forbidden');
      // Found, shown and removed by the spelling it was set with, and by the one it is listed as.
      expect((await listed()).map((o: { identity: string }) => o.identity)).toEqual([
        set.body.identity,
      ]);
      await http().get(clientUrl(typed)).set(AUTH).expect(200, set.body);
      await http().get(clientUrl(set.body.identity)).set(AUTH).expect(200, set.body);
      await http().delete(clientUrl(typed)).set(AUTH).expect(204);
      await from(address).expect(200);
    },
  );

  it.each([
    'ip:203.000.113.007',
    'ip:203.0.113.7.',
    'ip: 203.0.113.7',
    'ip:2001:db8::/48',
    'ip:127.1',
    'ip:',
  ])('%j is refused with 400 naming the forms taken, on every route', async (typed) => {
    const answers = [
      await http().put(clientUrl(typed)).set(AUTH).send({ action: 'deny' }),
      await http().get(clientUrl(typed)).set(AUTH),
      await http().delete(clientUrl(typed)).set(AUTH),
      await http().delete(keyUrl(typed)).set(AUTH),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(FORMS);
    }
    expect(await listed()).toEqual([]);
    await from('203.0.113.7').expect(200);
  });

  it('takes the fingerprint form of an address only where addresses are fingerprinted', async () => {
    const fingerprint = 'ip:(hmac:AAAAAAAAAAAAAAAAAAAAAA)';
    const res = await http().put(clientUrl(fingerprint)).set(AUTH).send({ action: 'deny' });
    expect(res.status).toBe(options.identityHashing ? 200 : 400);
  });

  it('a key reset by another spelling of the address resets the client', async () => {
    for (const address of ['2001:db8::5', '2001:db8::6']) await from(address).expect(200);
    await from('2001:db8::7').expect(429);
    await http().delete(keyUrl('IP:2001:DB8::1')).set(AUTH).expect(204);
    await from('2001:db8::7').expect(200);
    await from('::ffff:203.0.113.9').expect(200);
    await from('203.0.113.9').expect(200);
    await from('203.0.113.9').expect(429);
    await http().delete(keyUrl('ip:::ffff:203.0.113.9')).set(AUTH).expect(204);
    await from('203.0.113.9').expect(200);
  });
});
