/**
 * "Exact" where users need it: three demo processes (`node dist/apps/demo/main.js`) on one Redis
 * or on a 3-master Cluster, bursts of hundreds to a thousand concurrent requests from a load
 * generator in its own process, each burst one client (a loopback source address of its own).
 * The six algorithms are bursted at the same time, each under its own policy, so the processes
 * take six bursts at once: 6,000 concurrent requests on freshly started processes, then warm
 * rounds, rounds with one instance's event loop blocked mid-burst, and rounds at a larger limit.
 * Every burst admits exactly the limit, and no decision leaves Redis.
 *
 * More rounds of the same (20 warm rounds instead of 3, 10 fresh starts) are `npm run
 * bench:bursts`.
 */
import { RATE_LIMIT_ALGORITHMS } from '../../libs/rate-limit/src/policy/rate-limit-algorithm';
import {
  startTestCluster,
  type TestCluster,
} from '../../libs/rate-limit/test/support/redis-cluster';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../../libs/rate-limit/test/support/redis-test-server';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';
import { type Fleet, type RedisEnv, startFleet } from '../support/demo-fleet';
import {
  type Burst,
  type LoadGenerator,
  newSourceAddress,
  startLoadGenerator,
} from '../support/load-generator';

const INSTANCES = 3;
const LIMIT = 50;
const BIG_LIMIT = 500;
const WARM_ROUNDS = 3;
const BUSY_ROUNDS = 3;
const BIG_ROUNDS = 3;
/** A round of six bursts of 1,000 takes 2-4 s here; a topology's rounds about 40 s. */
const TEST_TIMEOUT_MS = 120_000;

interface Topology {
  name: string;
  start(): Promise<{ env: RedisEnv; close(): Promise<void> }>;
}

const TOPOLOGIES: Topology[] = [
  {
    name: 'one redis-server',
    async start() {
      const redis: TestRedis = await startTestRedis();
      return { env: { REDIS_URL: redis.url }, close: () => redis.close() };
    },
  },
  {
    name: 'a 3-master Redis Cluster',
    async start() {
      const cluster: TestCluster = await startTestCluster({ masters: 3, replicasPerMaster: 0 });
      const nodes = cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',');
      return { env: { REDIS_CLUSTER_NODES: nodes }, close: () => cluster.close() };
    },
  },
];

describe.each(TOPOLOGIES)('$name, 3 demo processes, six algorithms bursted at once', (topology) => {
  let redis: { env: RedisEnv; close(): Promise<void> };
  let load: LoadGenerator;
  let fleet: Fleet | undefined;

  beforeAll(async () => {
    redis = await topology.start();
    load = startLoadGenerator();
    const env = { RATE_LIMIT_KEY_PREFIX: uniquePrefix('load') };
    // The limits are set on a first fleet, then a fresh one takes the first bursts.
    const setup = await startFleet(1, redis.env, env);
    const windowMs = windowWithoutBoundary();
    for (const algo of RATE_LIMIT_ALGORITHMS) {
      await setup.setPolicy(`demo.${algo}`, { limit: LIMIT, windowMs, burst: LIMIT });
    }
    await setup.stop();
    fleet = await startFleet(INSTANCES, redis.env, env);
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
    load?.close();
    await redis?.close();
  });

  /** Admitted (200) of one burst from a new client; anything but 200 and 429 fails the test. */
  async function admitted(path: string, count: number, extra?: Burst['extra']): Promise<number> {
    const result = await load.burst({
      targets: fleet!.targets,
      path,
      count,
      sourceAddress: newSourceAddress(),
      extra,
    });
    const { 200: ok = 0, 429: rejected = 0, ...others } = result.statuses;
    expect(others).toEqual({});
    expect(ok + rejected).toBe(count);
    if (extra) expect(result.extraStatus).toBe(200);
    return ok;
  }

  /** One burst per algorithm, all at once; admitted per algorithm. */
  async function round(count: number, extra?: Burst['extra']): Promise<Record<string, number>> {
    const counts = await Promise.all(
      RATE_LIMIT_ALGORITHMS.map((algo, i) =>
        // The blocked loop is one instance's: one burst asks for it, all six live through it.
        admitted(`/api/${algo}`, count, i === 0 ? extra : undefined),
      ),
    );
    return Object.fromEntries(RATE_LIMIT_ALGORITHMS.map((algo, i) => [algo, counts[i]]));
  }
  const each = (limit: number) => Object.fromEntries(RATE_LIMIT_ALGORITHMS.map((a) => [a, limit]));

  it(
    'cold: the first traffic of fresh processes, a burst of 1,000 per algorithm, admits exactly the limit',
    async () => {
      expect(await round(1_000)).toEqual(each(LIMIT));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `warm: ${WARM_ROUNDS} rounds of bursts of 300 and of 1,000 admit exactly the limit`,
    async () => {
      const seen: Record<string, number>[] = [];
      for (let i = 0; i < WARM_ROUNDS; i++) seen.push(await round(300), await round(1_000));
      expect(seen).toEqual(Array(2 * WARM_ROUNDS).fill(each(LIMIT)));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'busy: with one instance spinning its event loop for 250 ms mid-burst, exactly the limit',
    async () => {
      const busy = { url: `${fleet!.targets[0]}/load-test/busy?ms=250`, atIndex: 500 };
      const seen: Record<string, number>[] = [];
      for (let i = 0; i < BUSY_ROUNDS; i++) seen.push(await round(1_000, busy));
      expect(seen).toEqual(Array(BUSY_ROUNDS).fill(each(LIMIT)));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `at a limit of ${BIG_LIMIT} set at runtime: exactly the limit`,
    async () => {
      for (const algo of RATE_LIMIT_ALGORITHMS) {
        await fleet!.setPolicy(`demo.${algo}`, { limit: BIG_LIMIT, burst: BIG_LIMIT });
      }
      const seen: Record<string, number>[] = [];
      for (let i = 0; i < BIG_ROUNDS; i++) seen.push(await round(1_000));
      expect(seen).toEqual(Array(BIG_ROUNDS).fill(each(BIG_LIMIT)));
    },
    TEST_TIMEOUT_MS,
  );

  it('no decision left Redis: no fallback decision, Redis error or circuit opening', async () => {
    const faults = await fleet!.faults();
    if (Object.values(faults).some((n) => n !== 0)) {
      // Says which instance failed how and when.
      console.log(
        `${topology.name}: faults ${JSON.stringify(faults)}\n${await fleet!.faultReport()}`,
      );
    }
    expect(faults).toEqual({ fallbackDecisions: 0, redisErrors: 0, circuitOpenings: 0 });
  });
});
