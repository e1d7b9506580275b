/**
 * The admin API's keys listing and resets on TWO instances of a fixture app sharing one Redis:
 * pages over every identity, resets that reach every instance, secrets listed by fingerprint.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { ADMIN_AUTH } from '../fixtures/fixture-app';
import { useAdminPair } from './admin-pair';

describe('admin API keys across two instances', () => {
  const pair = useAdminPair();
  const figures: string[] = [];
  afterAll(() => console.log(figures.join('\n')));

  // A sliding window of 5 minutes: nothing the flood uses leaves it while the test lists keys (a
  // bucket would refill and make `used` depend on the machine's speed). ips[0]'s two requests
  // come after the flood all the same, so its count never depends on how long the flood took.
  it('keys listing shows used/remaining/resetMs and pages over 1,000 identities without missing or repeating one', async () => {
    const total = 1_000;
    const ips = Array.from({ length: total }, (_, i) => `10.20.${i >> 8}.${i & 255}`);
    const floodStarted = Date.now();
    for (let i = 0; i < total; i += 100) {
      await Promise.all(
        ips.slice(Math.max(i, 1), i + 100).map((ip, j) =>
          request((j % 2 ? pair.a() : pair.b()).getHttpServer())
            .get('/api/sliding-window')
            .set('X-Forwarded-For', ip),
        ),
      );
    }
    figures.push(
      `keys listing: ${total - 1} requests in batches of 100 took ${Date.now() - floodStarted} ms`,
    );
    for (const app of [pair.a(), pair.b()]) {
      await request(app.getHttpServer()).get('/api/sliding-window').set('X-Forwarded-For', ips[0]);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await request(pair.b().getHttpServer())
        .get('/admin/policies/fx.sliding-window/keys')
        .query({ count: 100, ...(cursor ? { cursor } : {}) })
        .set(ADMIN_AUTH)
        .expect(200);
      expect(res.body.items.length).toBeLessThanOrEqual(200);
      for (const item of res.body.items) {
        seen.push(item.identity);
        if (item.identity === `ip:${ips[0]}`) {
          expect(item).toMatchObject({ used: 2, remaining: 3 });
          expect(item.resetMs).toBeGreaterThan(0);
        }
      }
      cursor = res.body.cursor;
      pages++;
    } while (cursor !== null);
    figures.push(`keys listing: ${seen.length} identities in ${pages} pages of ~100`);
    expect(pages).toBeGreaterThanOrEqual(6);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(new Set(ips.map((ip) => `ip:${ip}`)));
  });

  // Sliding-window policies: no unit comes back during the test, whatever the machine's speed.
  it('resetting an identity lets it through again, on every instance', async () => {
    const ip = '198.51.100.3';
    for (let i = 0; i < 5; i++)
      await request(pair.a().getHttpServer())
        .get('/api/sliding-window')
        .set('X-Forwarded-For', ip)
        .expect(200);
    await request(pair.b().getHttpServer())
      .get('/api/sliding-window')
      .set('X-Forwarded-For', ip)
      .expect(429);
    await request(pair.a().getHttpServer())
      .delete(`/admin/policies/fx.sliding-window/keys/${encodeURIComponent(`ip:${ip}`)}`)
      .set(ADMIN_AUTH)
      .expect(204);
    const res = await request(pair.b().getHttpServer())
      .get('/api/sliding-window')
      .set('X-Forwarded-For', ip)
      .expect(200);
    expect(res.headers['ratelimit-remaining']).toBe('4');
  });

  it.each(['1739', 'abc', '0:1:2', '0:99999999999999999999'])(
    'keys listing answers 400 for a cursor no page gave out (%j)',
    async (cursor) => {
      const res = await request(pair.a().getHttpServer())
        .get('/admin/policies/fx.gcra/keys')
        .query({ cursor })
        .set(ADMIN_AUTH)
        .expect(400);
      expect(res.body.message).toMatch(/cursor/);
    },
  );

  // A key encodes to more than 96 characters, so its Redis key holds a readable prefix and a hash.
  // An API key is a secret: Redis keys, the listing and the logs hold its fingerprint only.
  it('lists an API key by its fingerprint with its real usage, and resets it by that or the raw key', async () => {
    const apiKey = `sk_live_${'k'.repeat(150)}`;
    const keyed = (app: INestApplication) =>
      request(app.getHttpServer()).get('/api/keyed').set('X-Api-Key', apiKey);
    const listed = async () =>
      (
        await request(pair.b().getHttpServer())
          .get('/admin/policies/fx.api-key/keys')
          .set(ADMIN_AUTH)
          .expect(200)
      ).body.items;
    for (let i = 0; i < 5; i++) await keyed(i % 2 ? pair.a() : pair.b()).expect(200);
    await keyed(pair.a()).expect(429);
    const items = await listed();
    expect(items).toHaveLength(1);
    const [item] = items;
    expect(item.identity).toMatch(/^key:sk_l…\(hmac:[A-Za-z0-9_-]{22}\)$/);
    // Its bucket refills nothing during the test (a window of days): all five are still used.
    expect(item.used).toBeGreaterThanOrEqual(4);
    const keys = await pair.raw().keys(`${pair.prefix()}:*`);
    expect(keys.some((key) => key.includes('fx.api-key'))).toBe(true);
    expect(keys.join(' ')).not.toContain('kkkk');
    await request(pair.a().getHttpServer())
      .delete(`/admin/policies/fx.api-key/keys/${encodeURIComponent(item.identity)}`)
      .set(ADMIN_AUTH)
      .expect(204);
    expect((await keyed(pair.b()).expect(200)).headers['ratelimit-remaining']).toBe('4');
    // By the raw value too.
    await request(pair.a().getHttpServer())
      .delete(`/admin/policies/fx.api-key/keys/${encodeURIComponent(`key:${apiKey}`)}`)
      .set(ADMIN_AUTH)
      .expect(204);
    expect((await keyed(pair.a()).expect(200)).headers['ratelimit-remaining']).toBe('4');
  });
});
