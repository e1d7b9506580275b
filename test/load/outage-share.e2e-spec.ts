/**
 * A real outage in `memory` mode, across three demo processes: Redis is frozen (SIGSTOP) in the
 * middle of a burst, then killed (SIGKILL), and the same client keeps bursting. The instances
 * share the limit (each admits about limit / 3, and starts from what it admitted itself while
 * Redis decided), so the whole fleet admits at most the limit plus one per instance.
 */
import { RATE_LIMIT_ALGORITHMS } from '../../libs/rate-limit/src/policy/rate-limit-algorithm';
import { type Fleet, startFleet } from '../support/demo-fleet';
import { metricTotal } from '../support/demo-process';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../libs/rate-limit/test/support/redis-test-server';
import {
  type LoadGenerator,
  newSourceAddress,
  startLoadGenerator,
} from '../support/load-generator';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';

const INSTANCES = 3;
/** One algorithm takes about 10 s alone, longer beside the rest of the suite. */
const TEST_TIMEOUT_MS = 180_000;
const LIMIT = 50;
const BURST = 1_000;
/** The first burst is spread over this long, so that freezing Redis lands among its decisions. */
const SPREAD_MS = 1_000;
/** After how many responses of the first burst Redis is frozen, per algorithm: before, around and after the limit is reached. */
const FREEZE_AFTER = [10, 40, 80, 200, 25, 120];

const figures: string[] = [];

describe('Redis frozen then killed in the middle of a burst, 3 instances, onRedisError=memory', () => {
  let load: LoadGenerator;
  let redis: TestRedis | undefined;
  let fleet: Fleet | undefined;

  beforeAll(() => {
    load = startLoadGenerator();
  });
  afterEach(async () => {
    await fleet?.stop();
    fleet = undefined;
    await redis?.close();
    redis = undefined;
  });
  afterAll(() => {
    load.close();
    console.log(
      `Outage share figures (limit ${LIMIT}, ${INSTANCES} instances):\n${figures.join('\n')}`,
    );
  });

  it.each(RATE_LIMIT_ALGORITHMS.map((algo, i) => [algo, FREEZE_AFTER[i]] as const))(
    '%s (frozen after %i responses): within the limit plus one per instance',
    async (algo, freezeAfter) => {
      const windowMs = windowWithoutBoundary();
      redis = await startTestRedis();
      fleet = await startFleet(
        INSTANCES,
        { REDIS_URL: redis.url },
        { RATE_LIMIT_KEY_PREFIX: uniquePrefix('outage'), RATE_LIMIT_ON_REDIS_ERROR: 'memory' },
      );
      await fleet.setPolicy(`demo.${algo}`, { limit: LIMIT, windowMs, burst: LIMIT });
      // Every instance has seen the others alive in a heartbeat.
      for (const instance of fleet.instances) {
        while (metricTotal(await instance.metrics(), 'rate_limit_live_instances') !== INSTANCES) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      const path = `/api/${algo}`;
      const run = (sourceAddress: string, onProgress?: () => void, notifyAfter?: number) =>
        load
          .burst(
            {
              targets: fleet!.targets,
              path,
              count: BURST,
              sourceAddress,
              notifyAfter,
              spreadMs: notifyAfter && SPREAD_MS,
            },
            onProgress,
          )
          .then((result) => {
            const { 200: ok = 0, 429: rejected = 0, ...others } = result.statuses;
            expect(others).toEqual({});
            expect(ok + rejected).toBe(BURST);
            return ok;
          });

      // Instances that have served traffic (Redis fails on a fleet at work, not on one booting):
      // a process's first requests are slow, and one that has not heard back from Redis about a
      // client when Redis goes away grants that client its whole share (see README).
      await run(newSourceAddress());
      const client = newSourceAddress();
      const server = redis;
      let frozen: Promise<void> | undefined;
      const first = await run(client, () => (frozen = server.pause()), freezeAfter);
      await frozen;
      const fallbackInFirst = (await fleet.faults()).fallbackDecisions;
      await redis.kill('SIGKILL');
      const second = await run(client);
      // A client whose first request comes during the outage.
      const newcomer = await run(newSourceAddress());
      const faults = await fleet.faults();

      figures.push(
        `  ${algo.padEnd(22)} frozen after ${String(freezeAfter).padStart(3)} responses: ` +
          `${first} + ${second} = ${first + second} admitted (${fallbackInFirst} of the first burst ` +
          `decided by the fallback); a client new in the outage: ${newcomer}`,
      );
      expect(faults.fallbackDecisions).toBeGreaterThan(0);
      expect(first + second).toBeLessThanOrEqual(LIMIT + INSTANCES);
      expect(newcomer).toBeLessThanOrEqual(LIMIT + INSTANCES);
    },
    TEST_TIMEOUT_MS,
  );
});
