import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { RateLimitGuard } from '../src/guard/rate-limit.guard';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { RateLimitAdminModule } from '../src/admin/rate-limit-admin.module';

const TOKEN = 'unit-admin-token-0123456789abcdef';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
/** supertest reaches the app over loopback; the guard reports `::ffff:127.0.0.1` as IPv4. */
const LOCAL = 'ip:127.0.0.1';
const OTHER = 'ip:203.0.113.7';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

@Controller('api')
class ApiController {
  @Get('limited')
  @RateLimit({ name: 'api.limited', algo: 'sliding-window', limit: 2, window: '1h' })
  limited() {
    return 'ok';
  }
}

describe('client overrides through the admin API (memory store)', () => {
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  const url = (identity: string, policy = 'api.limited') =>
    `/admin/policies/${policy}/clients/${encodeURIComponent(identity)}`;
  const put = (identity: string, body: object, policy?: string) =>
    http().put(url(identity, policy)).set(AUTH).send(body);
  const list = (query = '') => http().get(`/admin/policies/api.limited/clients${query}`).set(AUTH);

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimitModule.forRoot({}), RateLimitAdminModule.forRoot({ token: TOKEN })],
      controllers: [ApiController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterEach(async () => {
    await app?.close();
  });

  it('PUT allow answers the override; GET and the list show it; DELETE removes it (204)', async () => {
    const before = Date.now();
    const set = await put(OTHER, { action: 'allow' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      identity: OTHER,
      action: 'allow',
      expiresAt: null,
      updatedAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(set.body.updatedAt)).toBeGreaterThanOrEqual(before);
    await http().get(url(OTHER)).set(AUTH).expect(200, set.body);
    await list().expect(200, { items: [set.body], cursor: null });
    await http().delete(url(OTHER)).set(AUTH).expect(204, '');
    const gone = await http().get(url(OTHER)).set(AUTH);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe(
      'No client override for this identity under rate limit policy "api.limited"',
    );
    await http().delete(url(OTHER)).set(AUTH).expect(204);
    await list().expect(200, { items: [], cursor: null });
  });

  it('PUT deny with a message rejects the client at once, until DELETE', async () => {
    const set = await put(LOCAL, { action: 'deny', message: 'Account suspended' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      identity: LOCAL,
      action: 'deny',
      message: 'Account suspended',
      expiresAt: null,
      updatedAt: expect.stringMatching(ISO),
    });
    const denied = await http().get('/api/limited');
    expect(denied.status).toBe(429);
    expect(denied.body.message).toBe('Account suspended');
    await http().delete(url(LOCAL)).set(AUTH).expect(204);
    await http().get('/api/limited').expect(200);
  });

  it('PUT a quota (the default action) with window and expiresIn: its own limit applies', async () => {
    const before = Date.now();
    const set = await put(LOCAL, { limit: 1, window: '1m', expiresIn: '1h' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      identity: LOCAL,
      action: 'quota',
      limit: 1,
      windowMs: 60_000,
      expiresAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const expiresAt = Date.parse(set.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
    await http().get('/api/limited').expect(200);
    await http().get('/api/limited').expect(429); // the policy alone would admit 2
  });

  it('PUT replaces the previous override of the client', async () => {
    await put(OTHER, { action: 'deny' }).expect(200);
    await put(OTHER, { limit: 5 }).expect(200);
    const res = await http().get(url(OTHER)).set(AUTH).expect(200);
    expect(res.body).toMatchObject({ action: 'quota', limit: 5 });
    expect(res.body).not.toHaveProperty('message');
  });

  it('shows a hashed identity by its fingerprint, and finds it by either form', async () => {
    const raw = 'key:sk_live_0123456789abcdef';
    const set = await put(raw, { action: 'allow' }).expect(200);
    expect(set.body.identity).toMatch(/^key:sk_l…\(hmac:[A-Za-z0-9_-]{22}\)$/);
    expect(JSON.stringify(set.body)).not.toContain('0123456789abcdef');
    await http().get(url(raw)).set(AUTH).expect(200, set.body);
    await http().get(url(set.body.identity)).set(AUTH).expect(200, set.body);
    await http().delete(url(set.body.identity)).set(AUTH).expect(204);
    await http().get(url(raw)).set(AUTH).expect(404);
  });

  it('lists a page at a time: count, cursor, and 0 or empty for the first page', async () => {
    const ids = ['ip:198.51.100.1', 'ip:198.51.100.2', 'ip:198.51.100.3'];
    for (const id of ids) await put(id, { action: 'allow' }).expect(200);
    const first = await list('?count=2').expect(200);
    expect(first.body.items.map((i: { identity: string }) => i.identity)).toEqual(ids.slice(0, 2));
    expect(first.body.cursor).toEqual(expect.any(String));
    const second = await list(`?count=2&cursor=${first.body.cursor}`).expect(200);
    expect(second.body).toEqual({
      items: [expect.objectContaining({ identity: ids[2] })],
      cursor: null,
    });
    for (const start of ['?cursor=0&count=2', '?cursor=&count=2']) {
      expect((await list(start).expect(200)).body).toEqual(first.body);
    }
    expect((await list().expect(200)).body.items).toHaveLength(3);
  });

  it.each<[string, string, string]>([
    [
      'a cursor the store never gave out',
      '?cursor=abc',
      'cursor must be a value returned by a previous page',
    ],
    ['a zero count', '?count=0', 'count must not be less than 1'],
    ['a count over 1000', '?count=1001', 'count must not be greater than 1000'],
    ['an unknown parameter', '?match=*', 'property match should not exist'],
  ])('the list answers 400 for %s', async (_label, query, message) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect([res.body.message].flat()).toContain(message);
  });

  it('answers 404 for an unknown policy on every route', async () => {
    const answers = await Promise.all([
      http().get('/admin/policies/nope/clients').set(AUTH),
      http().get(url(OTHER, 'nope')).set(AUTH),
      put(OTHER, { action: 'allow' }, 'nope'),
      http().delete(url(OTHER, 'nope')).set(AUTH),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('Unknown rate limit policy "nope"');
    }
  });

  it.each<[string, object, string]>([
    [
      'both expiresAt and expiresIn',
      { action: 'allow', expiresAt: Date.now() + 60_000, expiresIn: '1h' },
      'expiresIn and expiresAt are exclusive: send only one of them',
    ],
    ['an unknown field', { action: 'allow', reason: 'vip' }, 'property reason should not exist'],
    [
      'a null action',
      { action: null },
      'action must be one of the following values: quota, allow, deny',
    ],
    [
      'an unknown action',
      { action: 'block' },
      'action must be one of the following values: quota, allow, deny',
    ],
    ['a zero limit', { limit: 0 }, 'limit must not be less than 1'],
    [
      'an unparsable expiresAt',
      { action: 'allow', expiresAt: 'soon' },
      'expiresAt must be an ISO 8601 date-time',
    ],
    // From ClientOverrides, which checks what suits the action and the policy.
    ['a quota without thresholds', {}, 'a quota must set at least one of limit, window, burst'],
    ['a limit on an allow', { action: 'allow', limit: 5 }, "limit is only for action 'quota'"],
    ['a message on a quota', { limit: 5, message: 'hi' }, "message is only for action 'deny'"],
    [
      'a sliding-window quota above 10000',
      { limit: 10_001 },
      "limit must be at most 10000 with algo 'sliding-window'",
    ],
    [
      'an expiry in the past',
      { action: 'allow', expiresAt: '2020-01-01T00:00:00Z' },
      'expiresAt must be in the future, at most 366 days ahead',
    ],
  ])('PUT answers 400 for %s and writes nothing', async (_label, body, message) => {
    const res = await put(OTHER, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(expect.arrayContaining([expect.stringContaining(message)]));
    await http().get(url(OTHER)).set(AUTH).expect(404);
  });

  it('answers 401 without the token and changes nothing', async () => {
    await http().put(url(OTHER)).send({ action: 'deny' }).expect(401);
    await http().get(url(OTHER)).expect(401);
    await http().get('/admin/policies/api.limited/clients').expect(401);
    await http().delete(url(OTHER)).expect(401);
    await list().expect(200, { items: [], cursor: null });
  });
});
