/**
 * The admin API refuses bad input with a 400 naming the field and writes nothing, on either of
 * TWO instances of a fixture app sharing one Redis: invalid fields, invalid combinations, what
 * is stored by hand, keys of another type, malformed JSON, unknown policies.
 */
import request from 'supertest';
import { ADMIN_AUTH } from '../fixtures/fixture-app';
import { useAdminPair } from './admin-pair';

const pair = useAdminPair();

describe('bad input answers 400 naming the field, and nothing is written', () => {
  const bad: [string, unknown, string][] = [
    ['negative limit', { limit: -1 }, 'limit'],
    ['zero limit', { limit: 0 }, 'limit'],
    ['fractional limit', { limit: 1.5 }, 'limit'],
    ['non-numeric limit', { limit: 'ten' }, 'limit'],
    ['too large limit', { limit: 1_000_000_001 }, 'limit'],
    ['unparsable window', { window: '10 parsecs' }, 'window'],
    ['out-of-range window', { window: '400d' }, 'window'],
    ['zero windowMs', { windowMs: 0 }, 'windowMs'],
    ['unknown algo', { algo: 'token_bucket' }, 'algo'],
    ['unknown mode', { mode: 'observe' }, 'mode'],
    ['non-boolean enabled', { enabled: 'yes' }, 'enabled'],
    ['bad burst', { burst: 0 }, 'burst'],
    ['unknown field', { limit: 3, colour: 'red' }, 'colour'],
    // Named after Object.prototype members: the whitelist once let them through (fuzz-found).
    ['a field named constructor', JSON.parse('{"limit":3,"constructor":1}'), 'constructor'],
    ['a field named __proto__', JSON.parse('{"__proto__":0,"limit":3}'), '__proto__'],
    // What Fastify's JSON parser refuses itself, by default with its own message.
    [
      'a constructor holding a prototype',
      JSON.parse('{"limit":3,"constructor":{"prototype":{"admin":true}}}'),
      'constructor',
    ],
    ['a field named prototype', { prototype: 0, limit: 3 }, 'prototype'],
  ];
  it.each(bad)('%s', async (_label, body, field) => {
    const before = await pair.policyOn(pair.a(), 'fx.gcra');
    const res = await request(pair.a().getHttpServer())
      .patch('/admin/policies/fx.gcra')
      .set(ADMIN_AUTH)
      .send(body as object)
      .expect(400);
    expect(JSON.stringify(res.body.message)).toContain(field);
    expect(await pair.policyOn(pair.a(), 'fx.gcra')).toEqual(before);
    expect(await pair.policyOn(pair.b(), 'fx.gcra')).toMatchObject({
      limit: before.limit,
      override: null,
    });
    expect(await pair.raw().exists(`${pair.prefix()}:policy:fx.gcra`)).toBe(0);
  });

  // Each field is valid alone; the result is not (the sliding log's largest limit is 10,000).
  it.each([
    ['fx.sliding-window', { limit: 20_000 }],
    ['fx.fixed-window', { algo: 'sliding-window', limit: 10_001 }],
  ])('%s %j: 400 pointing to sliding-window-counter', async (name, body) => {
    const res = await request(pair.a().getHttpServer())
      .patch(`/admin/policies/${name}`)
      .set(ADMIN_AUTH)
      .send(body)
      .expect(400);
    expect(JSON.stringify(res.body.message)).toContain('sliding-window-counter');
    expect(await pair.raw().exists(`${pair.prefix()}:policy:${name}`)).toBe(0);
    expect((await pair.policyOn(pair.b(), name)).override).toBeNull();
  });

  it('checked against the override as stored, not as this instance last read it', async () => {
    // Written by hand a moment ago: neither instance has refreshed yet (every 5 s).
    await pair.raw().hset(`${pair.prefix()}:policy:fx.fixed-window`, 'algo', 'sliding-window');
    await request(pair.a().getHttpServer())
      .patch('/admin/policies/fx.fixed-window')
      .set(ADMIN_AUTH)
      .send({ limit: 50_000 })
      .expect(400);
    expect(await pair.raw().hgetall(`${pair.prefix()}:policy:fx.fixed-window`)).toEqual({
      algo: 'sliding-window',
    });
  });

  it('a limit the sliding log cannot take, then a switch to it: the switch is refused', async () => {
    await request(pair.a().getHttpServer())
      .patch('/admin/policies/fx.fixed-window')
      .set(ADMIN_AUTH)
      .send({ limit: 50_000 })
      .expect(200);
    const before = await pair.raw().hgetall(`${pair.prefix()}:policy:fx.fixed-window`);
    await request(pair.a().getHttpServer())
      .patch('/admin/policies/fx.fixed-window')
      .set(ADMIN_AUTH)
      .send({ algo: 'sliding-window' })
      .expect(400);
    expect(await pair.raw().hgetall(`${pair.prefix()}:policy:fx.fixed-window`)).toEqual(before);
    expect(await pair.policyOn(pair.a(), 'fx.fixed-window')).toMatchObject({
      algo: 'fixed-window',
    });
  });

  it('a policy key of another type: PATCH is a 409 naming it, views and stats still answer', async () => {
    await pair.raw().set(`${pair.prefix()}:policy:fx.gcra`, 'x');
    await pair.raw().set(`${pair.prefix()}:stats:fx.gcra`, 'y');
    try {
      const res = await request(pair.a().getHttpServer())
        .patch('/admin/policies/fx.gcra')
        .set(ADMIN_AUTH)
        .send({ limit: 3 })
        .expect(409);
      expect(res.body.message).toContain(`${pair.prefix()}:policy:fx.gcra`);
      expect(await pair.raw().get(`${pair.prefix()}:policy:fx.gcra`)).toBe('x');
      const list = await request(pair.a().getHttpServer())
        .get('/admin/policies')
        .set(ADMIN_AUTH)
        .expect(200);
      const gcra = list.body.find((p: { name: string }) => p.name === 'fx.gcra');
      expect(gcra.stats).toEqual({ allowed: 0, rejected: 0, shadowRejected: 0 });
      await pair.raw().del(`${pair.prefix()}:stats:fx.gcra`);
      await pair.raw().hset(`${pair.prefix()}:stats:fx.gcra`, { allowed: 'abc', rejected: '1.5' });
      const view = await request(pair.a().getHttpServer())
        .get('/admin/policies/fx.gcra')
        .set(ADMIN_AUTH);
      expect(view.body.stats).toEqual({ allowed: 0, rejected: 0, shadowRejected: 0 });
    } finally {
      await pair.raw().del(`${pair.prefix()}:policy:fx.gcra`, `${pair.prefix()}:stats:fx.gcra`);
    }
  });

  it('malformed JSON', async () => {
    await request(pair.a().getHttpServer())
      .patch('/admin/policies/fx.gcra')
      .set(ADMIN_AUTH)
      .set('Content-Type', 'application/json')
      .send('{"limit": 3,')
      .expect(400);
    expect(await pair.raw().exists(`${pair.prefix()}:policy:fx.gcra`)).toBe(0);
    expect((await pair.policyOn(pair.a(), 'fx.gcra')).override).toBeNull();
  });

  it('unknown policy answers 404 and writes nothing', async () => {
    await request(pair.a().getHttpServer())
      .patch('/admin/policies/fx.nope')
      .set(ADMIN_AUTH)
      .send({ limit: 3 })
      .expect(404);
    expect(await pair.raw().exists(`${pair.prefix()}:policy:fx.nope`)).toBe(0);
  });
});
