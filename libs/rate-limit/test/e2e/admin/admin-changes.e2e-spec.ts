/**
 * The admin API on TWO instances of a fixture app sharing one Redis: what an operator changes on
 * one is enforced by the other at once (a PATCH, a hash written by hand, a restore), and stats
 * cover both. The 100 ms propagation bounds are the product's promise; each is checked on the
 * elapsed time less what the host kept this process from running (support/stall-meter): both
 * instances share this process, and a busy CI host once stretched one to 109 ms.
 */
import request from 'supertest';
import { ADMIN_AUTH } from '../fixtures/fixture-app';
import { meterStalls } from '../../support/stall-meter';
import { within } from '../../support/within';
import { useAdminPair, WINDOW_MS } from './admin-pair';

describe('admin API changes across two instances', () => {
  const pair = useAdminPair();
  const figures: string[] = [];
  afterAll(() => console.log(figures.join('\n')));

  it('lists every policy with its routes, defaults, override and stats', async () => {
    const res = await request(pair.a().getHttpServer())
      .get('/admin/policies')
      .set(ADMIN_AUTH)
      .expect(200);
    const names = res.body.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['fx.gcra', 'fx.sliding-window', 'fx.fixed-window', 'fx.api-key']),
    );
    const gcra = res.body.find((p: { name: string }) => p.name === 'fx.gcra');
    expect(gcra).toMatchObject({
      algo: 'gcra',
      limit: 5,
      windowMs: WINDOW_MS,
      burst: 5,
      mode: 'enforce',
      enabled: true,
      routes: [{ method: 'GET', path: '/api/gcra' }],
      override: null,
      stats: { allowed: 0, rejected: 0, shadowRejected: 0 },
    });
    await request(pair.a().getHttpServer()).get('/admin/policies/nope').set(ADMIN_AUTH).expect(404);
  });

  it('a PATCH on one instance is enforced by the other within 100 ms', async () => {
    const appliedOnB = pair.appliedOn(
      pair.b(),
      'fx.sliding-window',
      (policy) => policy.limit === 2,
    );
    const meter = meterStalls();
    // Stopped when B applies the change, not after the PATCH's answer: only stalls during the
    // propagation are taken off.
    const stalledUntilApplied = appliedOnB.then(() => meter.stop());
    const started = performance.now();
    const patched = await request(pair.a().getHttpServer())
      .patch('/admin/policies/fx.sliding-window')
      .set(ADMIN_AUTH)
      .send({ limit: 2, window: '1m' })
      .expect(200);
    expect(patched.body).toMatchObject({
      limit: 2,
      windowMs: 60_000,
      override: { limit: 2, windowMs: 60_000 },
    });
    const propagationMs = (await appliedOnB) - started - (await stalledUntilApplied);
    // Applied on B: its admin API and its decisions (below) show limit 2 from now on.
    const onB = await request(pair.b().getHttpServer())
      .get('/admin/policies/fx.sliding-window')
      .set(ADMIN_AUTH);
    expect(onB.body.limit).toBe(2);
    figures.push(
      `PATCH on A -> enforced on B after ${propagationMs.toFixed(1)} ms (including the PATCH round trip; less host stalls)`,
    );
    expect(propagationMs).toBeLessThan(100);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(pair.b().getHttpServer())
        .get('/api/sliding-window')
        .set('X-Forwarded-For', '198.51.100.1');
      statuses.push(res.status);
      if (i === 0) expect(res.headers['ratelimit-limit']).toBe('2');
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('a hash written directly with redis-cli HSET is applied within the refresh interval (5 s)', async () => {
    await pair
      .raw()
      .hset(`${pair.prefix()}:policy:fx.fixed-window`, 'limit', '1', 'mode', 'enforce');
    const appliedMs = await within(
      5_000 + 200,
      async () =>
        (await pair.policyOn(pair.b(), 'fx.fixed-window')).limit === 1 &&
        (await pair.policyOn(pair.a(), 'fx.fixed-window')).limit === 1,
    );
    figures.push(
      `direct HSET applied on both instances after ${appliedMs.toFixed(0)} ms (refresh interval 5000 ms)`,
    );
    const statuses = [];
    for (let i = 0; i < 2; i++)
      statuses.push(
        (
          await request(pair.a().getHttpServer())
            .get('/api/fixed-window')
            .set('X-Forwarded-For', '198.51.100.2')
        ).status,
      );
    expect(statuses).toEqual([200, 429]);
  });

  it('DELETE override restores the decorator defaults on both instances', async () => {
    const disabledOnB = pair.appliedOn(pair.b(), 'fx.gcra', (policy) => policy.enabled === false);
    await request(pair.a().getHttpServer())
      .patch('/admin/policies/fx.gcra')
      .set(ADMIN_AUTH)
      .send({ limit: 1, mode: 'shadow', enabled: false })
      .expect(200);
    const patchedAt = performance.now();
    const patchedStalls = meterStalls();
    expect((await disabledOnB) - patchedAt - patchedStalls.stop()).toBeLessThan(100);
    expect((await pair.policyOn(pair.b(), 'fx.gcra')).enabled).toBe(false);
    const restoredOnA = pair.appliedOn(pair.a(), 'fx.gcra', (policy) => policy.enabled);
    const restored = await request(pair.b().getHttpServer())
      .delete('/admin/policies/fx.gcra/override')
      .set(ADMIN_AUTH)
      .expect(200);
    expect(restored.body).toMatchObject({
      limit: 5,
      mode: 'enforce',
      enabled: true,
      override: null,
    });
    const deletedAt = performance.now();
    const deletedStalls = meterStalls();
    expect((await restoredOnA) - deletedAt - deletedStalls.stop()).toBeLessThan(100);
    expect((await pair.policyOn(pair.a(), 'fx.gcra')).enabled).toBe(true);
    expect(await pair.raw().exists(`${pair.prefix()}:policy:fx.gcra`)).toBe(0);
  });

  it('stats reflect traffic on both instances within 2 s', async () => {
    const ip = '198.51.100.4';
    for (let i = 0; i < 7; i++)
      await request((i % 2 ? pair.a() : pair.b()).getHttpServer())
        .get('/api/sliding-window')
        .set('X-Forwarded-For', ip);
    const started = performance.now();
    await within(2_000, async () => {
      const stats = (await pair.policyOn(pair.a(), 'fx.sliding-window')).stats;
      return stats.allowed === 5 && stats.rejected === 2;
    });
    figures.push(
      `stats of both instances visible after ${(performance.now() - started).toFixed(0)} ms`,
    );
    const shadowOnB = pair.appliedOn(
      pair.b(),
      'fx.sliding-window',
      (policy) => policy.mode === 'shadow',
    );
    await request(pair.a().getHttpServer())
      .patch('/admin/policies/fx.sliding-window')
      .set(ADMIN_AUTH)
      .send({ mode: 'shadow' })
      .expect(200);
    const shadowedAt = performance.now();
    const shadowedStalls = meterStalls();
    expect((await shadowOnB) - shadowedAt - shadowedStalls.stop()).toBeLessThan(100);
    await request(pair.b().getHttpServer())
      .get('/api/sliding-window')
      .set('X-Forwarded-For', ip)
      .expect(200);
    await within(
      2_000,
      async () => (await pair.policyOn(pair.a(), 'fx.sliding-window')).stats.shadowRejected === 1,
    );
  });
});
