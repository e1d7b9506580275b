import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import request from 'supertest';
import type { OnRedisError } from '@app/rate-limit';
import { untilReady } from '../support/redis-readiness';
import { startTestRedis, uniquePrefix } from '../support/redis-test-server';
import { createFixtureApp } from './fixtures/fixture-app';
import { algorithmsController } from './fixtures/limited-controller';

/**
 * Timers (those keeping the process alive) and sockets created while `scenario` runs,
 * including later by what it started (an async resource carries the context it was created in),
 * and not yet closed, by kind. Other
 * test files of the same Jest worker may leave clients of their own retrying: those are not
 * counted, as a process-wide count of handles would.
 */
function tracking(): {
  run<T>(scenario: () => Promise<T>): Promise<T>;
  open(): Record<string, number>;
  stop(): void;
} {
  const context = new AsyncLocalStorage<true>();
  const live = new Map<number, { type: string; resource: unknown }>();
  const hook = createHook({
    init(asyncId, type, _trigger, resource) {
      if (context.getStore() && (type === 'Timeout' || type === 'TCPWRAP')) {
        live.set(asyncId, { type, resource });
      }
    },
    destroy(asyncId) {
      live.delete(asyncId);
    },
  }).enable();
  return {
    run: (scenario) => context.run(true, scenario),
    open() {
      const counts: Record<string, number> = {};
      for (const { type, resource } of live.values()) {
        // A timer that has fired or was cleared is done even before its destroy hook runs; an
        // unref'd one keeps nothing alive (Node's Date-header cache, Apollo's drain timeout).
        const timer = resource as { _destroyed?: boolean; hasRef?(): boolean };
        if (type === 'Timeout' && (timer._destroyed || !timer.hasRef?.())) continue;
        counts[type] = (counts[type] ?? 0) + 1;
      }
      return counts;
    },
    stop: () => hook.disable(),
  };
}

describe.each<OnRedisError>(['memory', 'open', 'closed'])(
  'onRedisError=%s leaves no timer or socket behind',
  (mode) => {
    it('after a Redis outage and recovery, closing the app releases everything it started', async () => {
      const redis = await startTestRedis();
      const app = tracking();
      try {
        await app.run(async () => {
          // The module and the admin API, with everything they start (heartbeat, policy sync,
          // stats flush, Pub/Sub, the breaker's probes).
          const nest = await createFixtureApp({
            limiter: { redis: redis.url, keyPrefix: uniquePrefix(), onRedisError: mode },
            controllers: [algorithmsController('api', { limit: 5, window: '10s' }, ['gcra'])],
            admin: true,
          });
          await request(nest.getHttpServer()).get('/api/gcra').expect(200);
          await redis.pause();
          for (let i = 0; i < 5; i++) await request(nest.getHttpServer()).get('/api/gcra');
          await redis.resume();
          await untilReady(nest);
          await request(nest.getHttpServer()).get('/api/gcra');
          await nest.close();
        });
        // Sockets finish closing on later turns of the event loop, and a command still in
        // flight at close (a QUIT, a probe) holds its timeout timer until it is answered or
        // fails: poll (bounded), don't sleep. A timer never cleared, or re-armed, is still there
        // at the deadline; so is a socket never closed.
        const deadline = performance.now() + 2_000;
        while (Object.keys(app.open()).length > 0 && performance.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(app.open()).toEqual({});
      } finally {
        app.stop();
        await redis.close();
      }
    });
  },
);
