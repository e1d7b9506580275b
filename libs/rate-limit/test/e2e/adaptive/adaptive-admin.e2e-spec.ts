/**
 * Operators and adaptive protection through the admin API, on a real Redis with scripted load
 * signals: the view, a freeze that holds the fleet loop's level while the overload goes on, a
 * reset back to the configured thresholds, each in the audit log; 409 where there is nothing to
 * steer, 400 for a bad freeze.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { LoadSignals } from '../../../src/adaptive/pressure';
import { AdaptiveLimits } from '../../../src/runtime/adaptive/adaptive-limits.service';
import { ADAPTIVE_LOAD_SOURCE } from '../../../src/runtime/adaptive/load-source';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { ADMIN_AUTH, createFixtureApp, PATIENT_TIMEOUT_MS } from '../fixtures/fixture-app';

const IDLE: LoadSignals = { elu: 0.1, eventLoopDelayMs: 1, heap: 0.1, tickLatenessMs: 0 };
const OVERLOADED: LoadSignals = { ...IDLE, elu: 1, eventLoopDelayMs: 300 };
/** Local ticks per heartbeat (the fleet loop steps once a beat). */
const TICKS_PER_BEAT = 4;

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(() => redis.close());

async function start(mode: 'off' | 'enforce', signals: { now: LoadSignals }) {
  return createFixtureApp({
    limiter: {
      redis: redis.url,
      keyPrefix: uniquePrefix('adaptive-admin'),
      commandTimeoutMs: PATIENT_TIMEOUT_MS,
      adaptive: { mode, tiers: [{ name: 'default', floor: 0.2 }] },
    },
    admin: true,
    overrides: [
      { provide: ADAPTIVE_LOAD_SOURCE, useValue: { sample: () => signals.now, stop() {} } },
    ],
  });
}

const admin = (app: INestApplication) => ({
  get: (path: string) => request(app.getHttpServer()).get(`/admin/${path}`).set(ADMIN_AUTH),
  post: (path: string, body?: object) =>
    request(app.getHttpServer())
      .post(`/admin/${path}`)
      .set(ADMIN_AUTH)
      .send(body ?? {}),
  delete: (path: string) => request(app.getHttpServer()).delete(`/admin/${path}`).set(ADMIN_AUTH),
});

async function beats(adaptive: AdaptiveLimits, count: number): Promise<void> {
  for (let i = 0; i < count * TICKS_PER_BEAT; i++) await adaptive.nextTick();
}

describe('adaptive protection in the admin API', () => {
  let app: INestApplication;
  afterEach(() => app?.close());

  it('off: the view says so, and a freeze or reset is a 409 naming why', async () => {
    app = await start('off', { now: IDLE });
    expect((await admin(app).get('adaptive').expect(200)).body).toMatchObject({
      mode: 'off',
      leading: false,
      state: null,
      instances: [],
    });
    const refused = await admin(app).post('adaptive/freeze', { minutes: 5 }).expect(409);
    expect(refused.body.message).toContain('Adaptive protection is off');
    await admin(app).post('adaptive/reset').expect(409);
  });

  it('a freeze holds the level while the overload goes on; a reset returns every tier to 1', async () => {
    const signals = { now: IDLE };
    app = await start('enforce', signals);
    const adaptive = app.get(AdaptiveLimits);
    await admin(app).post('adaptive/freeze', { minutes: 0 }).expect(400);
    await admin(app).post('adaptive/freeze', { minutes: 'ten' }).expect(400);
    await admin(app).post('adaptive/freeze', { minutes: 1_441 }).expect(400);

    signals.now = OVERLOADED;
    for (let i = 0; i < 80 && !((adaptive.snapshot.state?.level ?? 0) > 0); i++) {
      await adaptive.nextTick();
    }
    const frozen = await admin(app).post('adaptive/freeze', { minutes: 10 }).expect(200);
    expect(frozen.body.frozenUntil).toBeGreaterThan(Date.now() + 9 * 60_000);
    await beats(adaptive, 1); // the leader reads the freeze at its next beat
    const level = adaptive.snapshot.state!.level;
    expect(level).toBeGreaterThan(0);
    expect(level).toBeLessThan(1); // one tier: the overload would take it to 1 within 3 beats
    await beats(adaptive, 3);
    expect(adaptive.snapshot.state!.level).toBe(level);

    // Load gone, still frozen: the level holds; a reset takes it to 0 (frozen there) at once.
    signals.now = IDLE;
    await beats(adaptive, 4);
    expect(adaptive.snapshot.state!.level).toBe(level);
    await admin(app).post('adaptive/reset').expect(200);
    await beats(adaptive, 1);
    expect(adaptive.snapshot.state!.level).toBe(0);
    await admin(app).delete('adaptive/freeze').expect(200);
    await beats(adaptive, 1);
    expect(adaptive.snapshot.state!.level).toBe(0);
    expect((await admin(app).get('adaptive').expect(200)).body).toMatchObject({
      mode: 'enforce',
      leading: true,
      frozenUntil: null,
      multipliers: { default: 1 },
      instances: [
        expect.objectContaining({ id: expect.any(String), dominant: expect.any(String), rps: 0 }),
      ],
    });

    const audit = await admin(app).get('audit').query({ policy: '(adaptive)' }).expect(200);
    const actions = audit.body.items.map((e: { action: string }) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['adaptive-freeze', 'adaptive-reset', 'adaptive-direction']),
    );
  });
});
