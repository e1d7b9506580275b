import request from 'supertest';
import { startTestRedis, uniquePrefix } from '../libs/rate-limit/test/support/redis-test-server';
import { createDemoApp } from './utils/create-demo-app';
import { untilReady } from './utils/redis-readiness';

/** Timers and sockets the process holds, by kind (Node's own accounting). */
function handles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

describe.each(['memory', 'open', 'closed'])(
  'onRedisError=%s leaves no timer or socket behind',
  (mode) => {
    it('after a Redis outage and recovery, closing the app releases everything it started', async () => {
      const redis = await startTestRedis();
      const before = handles();
      const app = await createDemoApp({
        REDIS_URL: redis.url,
        RATE_LIMIT_KEY_PREFIX: uniquePrefix(),
        RATE_LIMIT_ON_REDIS_ERROR: mode,
        ADMIN_TOKEN: 'timers-admin-token-0123456789abcdefghi',
      });
      await request(app.getHttpServer()).get('/api/gcra').expect(200);
      await redis.pause();
      for (let i = 0; i < 5; i++) await request(app.getHttpServer()).get('/api/gcra');
      await redis.resume();
      await untilReady(app);
      await request(app.getHttpServer()).get('/api/gcra');
      await app.close();
      // Sockets finish closing on later turns of the event loop, and a command still in flight
      // at close (a QUIT, a probe) holds its timeout timer until its reply or failure: poll
      // (bounded), don't sleep. A timer that is never cleared, or that re-arms, is still there
      // at the deadline.
      const deadline = performance.now() + 2_000;
      const settled = (now: Record<string, number>) =>
        (now.TCPSocketWrap ?? 0) <= (before.TCPSocketWrap ?? 0) &&
        (now.Timeout ?? 0) <= (before.Timeout ?? 0);
      while (!settled(handles()) && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const after = handles();
      await redis.close();
      expect(after.Timeout ?? 0).toBeLessThanOrEqual(before.Timeout ?? 0);
      expect(after.TCPSocketWrap ?? 0).toBeLessThanOrEqual(before.TCPSocketWrap ?? 0);
    });
  },
);
