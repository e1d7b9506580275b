/**
 * The outage share in the plain case, as a user would try it: three demo processes on one Redis
 * (`memory` mode, the default), a limit of 50; a client sends 6 requests one after another (on
 * Redis, spread over the instances), then Redis is frozen (SIGSTOP) and the client sends 300
 * requests at once, spread over the three. At most the limit plus one per instance may be
 * admitted in all; a client first seen during the freeze gets about the limit (the shares
 * 17 + 17 + 16). The six algorithms run at once under their own policies, on one fleet.
 *
 * Before the fix: 54-55 admitted of 50 for fixed-window (the timeouts of a burst end together, and
 * each fallback decision read the allowance before the others had spent it), 31 for the client
 * first seen during the freeze (its timed-out requests were counted as admitted on every
 * instance, on top of their own answers).
 */
import { RATE_LIMIT_ALGORITHMS } from '../../libs/rate-limit/src/policy/rate-limit-algorithm';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../../libs/rate-limit/test/support/redis-test-server';
import { type Fleet, startFleet } from '../support/demo-fleet';
import { metricTotal } from '../support/demo-process';
import {
  type LoadGenerator,
  newSourceAddress,
  startLoadGenerator,
} from '../support/load-generator';

const INSTANCES = 3;
const LIMIT = 50;
const BEFORE_FREEZE = 6;
const BURST = 300;

let load: LoadGenerator;
let redis: TestRedis;
let fleet: Fleet;

beforeAll(async () => {
  load = startLoadGenerator();
  redis = await startTestRedis();
  fleet = await startFleet(
    INSTANCES,
    { REDIS_URL: redis.url },
    { RATE_LIMIT_KEY_PREFIX: uniquePrefix('outage-plain'), RATE_LIMIT_ON_REDIS_ERROR: 'memory' },
  );
  // A window too long to refill or end during the test: the limit is the limit.
  const windowMs = windowWithoutBoundary();
  for (const algo of RATE_LIMIT_ALGORITHMS) {
    await fleet.setPolicy(`demo.${algo}`, { limit: LIMIT, windowMs, burst: LIMIT });
  }
  // Every instance has seen the others alive in a heartbeat.
  for (const instance of fleet.instances) {
    while (metricTotal(await instance.metrics(), 'rate_limit_live_instances') !== INSTANCES) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}, 60_000);

afterAll(async () => {
  load?.close();
  await fleet?.stop();
  await redis?.close();
});

/** Admitted (200) of a burst; anything but 200 and 429 fails the test. */
async function admitted(
  targets: string[],
  path: string,
  sourceAddress: string,
  count: number,
): Promise<number> {
  const { statuses } = await load.burst({ targets, path, count, sourceAddress });
  const { 200: ok = 0, 429: rejected = 0, ...others } = statuses;
  expect(others).toEqual({});
  expect(ok + rejected).toBe(count);
  return ok;
}

it('frozen after 6 requests: every algorithm admits at most the limit plus one per instance; a client first seen in the freeze about the limit', async () => {
  const clients = RATE_LIMIT_ALGORITHMS.map((algo) => ({
    algo,
    path: `/api/${algo}`,
    known: newSourceAddress(),
    newcomer: newSourceAddress(),
  }));
  // Six requests one after another, each instance in turn, all decided by Redis.
  const before = await Promise.all(
    clients.map(async ({ path, known }) => {
      let ok = 0;
      for (let i = 0; i < BEFORE_FREEZE; i++) {
        ok += await admitted([fleet.targets[i % INSTANCES]], path, known, 1);
      }
      return ok;
    }),
  );
  expect(before).toEqual(clients.map(() => BEFORE_FREEZE));
  expect(await fleet.faults()).toMatchObject({ fallbackDecisions: 0 });

  await redis.pause();
  const during = await Promise.all(
    clients.map(async ({ path, known, newcomer }) => {
      const [knownOk, newcomerOk] = await Promise.all([
        admitted(fleet.targets, path, known, BURST),
        admitted(fleet.targets, path, newcomer, BURST),
      ]);
      return { known: BEFORE_FREEZE + knownOk, newcomer: newcomerOk };
    }),
  );
  const figures = clients.map(
    ({ algo }, i) => `${algo}: ${during[i].known} and ${during[i].newcomer} (first seen)`,
  );
  expect((await fleet.faults()).fallbackDecisions).toBeGreaterThan(0);
  for (const [i, counts] of during.entries()) {
    const context = `${clients[i].algo} (all: ${figures.join(', ')})`;
    expect({ context, known: counts.known <= LIMIT + INSTANCES }).toEqual({ context, known: true });
    expect({ context, newcomer: Math.abs(counts.newcomer - LIMIT) <= INSTANCES }).toEqual({
      context,
      newcomer: true,
    });
  }
  console.log(
    `Outage share, plain case (limit ${LIMIT}, ${INSTANCES} instances): ${figures.join(', ')}`,
  );
}, 120_000);
