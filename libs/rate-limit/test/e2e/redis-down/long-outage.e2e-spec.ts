/**
 * A long Redis outage with onRedisError=memory (SPEC section 8): once both clients' reconnect
 * backoff has reached its cap, the instances still answer within the timeout from their shares,
 * and after restart() they decide with Redis again within one backoff interval.
 */
import type { INestApplication } from '@nestjs/common';
import { untilReady, untilReconnectDelay } from '../../support/redis-readiness';
import { timeWithStalls } from '../../support/stall-meter';
import { ownsTestRedis } from '../../support/redis-test-server';
import { exerciseFault, expectRedisDecides } from './fault-checks';
import { FaultLog, knowEachOther, twoInstances } from './outage-fixture';
import { useFaultyRedis } from './redis-fault';

/** The cap of the library's reconnect backoff (LIMITER_CLIENT_DEFAULTS.retryStrategy). */
const MAX_RECONNECT_DELAY_MS = 1_000;

// The file needs a Redis it can stop; with REDIS_URL set (not owned) it is skipped.
const describeOwned = ownsTestRedis() ? describe : describe.skip;

describeOwned('long outage (onRedisError=memory)', () => {
  const faulty = useFaultyRedis('Long Redis outage');
  let a: INestApplication;
  let b: INestApplication;
  beforeAll(async () => {
    [a, b] = await twoInstances(faulty.redis(), 'down-long', 'memory');
    faulty.use(a, b);
  });
  afterAll(() => faulty.release(a, b));

  it('recovers within the capped reconnect backoff once the clients retry only every second', async () => {
    await knowEachOther(a, b);
    await faulty.fault('stop');
    // Down until both clients' backoff has reached its cap.
    await Promise.all([
      untilReconnectDelay(a, MAX_RECONNECT_DELAY_MS),
      untilReconnectDelay(b, MAX_RECONNECT_DELAY_MS),
    ]);
    const log = new FaultLog();
    await exerciseFault('memory', a, b, log);
    expect(log.slow()).toEqual([]);

    // From when Redis accepts connections again (its own start is not the clients' doing), on
    // what the clients waited (stall-meter.ts).
    await faulty.recover();
    const ready = await timeWithStalls(() => Promise.all([untilReady(a), untilReady(b)]));
    const clientsReadyMs = ready.waitedMs;
    const restartAt = performance.now() - ready.ms;
    await expectRedisDecides(faulty.redis(), a, b);
    const decidingMs = performance.now() - restartAt;

    // The promise: at most one full backoff interval; 500 ms more for connecting and the
    // ready check on a loaded host.
    expect(clientsReadyMs).toBeLessThan(MAX_RECONNECT_DELAY_MS + 500);
    expect(faulty.rejections.describe()).toEqual([]);
    faulty.figures.push(
      `  backoff at ${MAX_RECONNECT_DELAY_MS} ms, memory: max ${log.maxMs.toFixed(1)} ms; ` +
        `both clients ready ${clientsReadyMs.toFixed(0)} ms (waited), Redis-decided ${decidingMs.toFixed(0)} ms after Redis was back`,
    );
  });

  it('saw no unhandled rejection in the whole file', () => {
    expect(faulty.rejections.describe()).toEqual([]);
  });
});
