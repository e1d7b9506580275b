/**
 * Redis stopped and restarted, end to end (SPEC section 8), for each onRedisError mode: two
 * instances of a fixture app (A, B) share one owned redis-server under a fresh key prefix. The
 * server exits: clients see the connection close and reconnect in the background (commands fail
 * at once: no offline queue). Every request during the fault must finish within the command
 * timeout plus a margin; after restart() on the same port, requests alternating across A and B
 * share one Redis-held budget again: 5 x 200 then 429.
 */
import type { INestApplication } from '@nestjs/common';
import type { OnRedisError } from '@app/rate-limit';
import { untilDisconnected, untilReady } from '../../support/redis-readiness';
import { ownsTestRedis } from '../../support/redis-test-server';
import { exerciseFault, expectRedisDecides } from './fault-checks';
import {
  FaultLog,
  LATENCY_BUDGET_MS,
  knowEachOther,
  redisKeyExists,
  stateKey,
  twoInstances,
} from './outage-fixture';
import { useFaultyRedis } from './redis-fault';

// The file needs a Redis it can stop; with REDIS_URL set (not owned) it is skipped.
const describeOwned = ownsTestRedis() ? describe : describe.skip;

describeOwned('Redis stopped (onRedisError)', () => {
  const faulty = useFaultyRedis(
    `Redis stopped (latency budget ${LATENCY_BUDGET_MS} ms per request)`,
  );

  describe.each<OnRedisError>(['memory', 'open', 'closed'])('onRedisError=%s', (mode) => {
    let a: INestApplication;
    let b: INestApplication;
    beforeAll(async () => {
      [a, b] = await twoInstances(faulty.redis(), `stopped-${mode}`, mode);
      faulty.use(a, b);
    });
    afterAll(() => faulty.release(a, b));

    it('behaves as configured within the timeout, then Redis decides again after restart()', async () => {
      const redis = faulty.redis();
      await expectRedisDecides(redis, a, b); // shared state before the fault
      await knowEachOther(a, b);

      await faulty.fault('stop');
      await Promise.all([untilDisconnected(a), untilDisconnected(b)]);

      const log = new FaultLog();
      const faultIp = await exerciseFault(mode, a, b, log);
      expect(log.slow()).toEqual([]);

      const restartAt = performance.now();
      await faulty.recover();
      const serverUpMs = performance.now() - restartAt;
      await Promise.all([untilReady(a), untilReady(b)]);
      const clientsReadyMs = performance.now() - restartAt;
      await expectRedisDecides(redis, a, b);
      const decidingMs = performance.now() - restartAt;

      if (mode === 'memory') {
        // The fault-time decisions were never written to Redis.
        expect(await redisKeyExists(redis, stateKey(a, 'fx.fixed-window', `ip:${faultIp}`))).toBe(
          false,
        );
      }
      expect(faulty.rejections.describe()).toEqual([]);
      faulty.figures.push(
        `  ${mode.padEnd(6)} stop : ${log.requests.length} requests, max ${log.maxMs.toFixed(1)} ms; ` +
          `restart() ${serverUpMs.toFixed(0)} ms, both clients ready ${clientsReadyMs.toFixed(0)} ms, ` +
          `Redis-decided 5x200+429 done ${decidingMs.toFixed(0)} ms after restart began`,
      );
    });
  });

  it('saw no unhandled rejection in the whole file', () => {
    expect(faulty.rejections.describe()).toEqual([]);
  });
});
