/**
 * "Exact" where users need it: three demo processes (`node dist/apps/demo/main.js`) on one Redis
 * or on a 3-master Cluster, bursts of hundreds to a thousand concurrent requests from a load
 * generator in its own process, each burst one client (a loopback source address of its own).
 * Every burst admits exactly the limit, on freshly started instances and warm ones, with one
 * instance's event loop blocked in the middle of a burst, and no decision leaves Redis.
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
import { type Fleet, type RedisEnv, startFleet } from '../support/demo-fleet';
import {
  type Burst,
  type LoadGenerator,
  newSourceAddress,
  startLoadGenerator,
} from '../support/load-generator';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';

const INSTANCES = 3;
/** One algorithm's bursts take 15-20 s alone, longer beside the rest of the suite. */
const TEST_TIMEOUT_MS = 180_000;
const LIMIT = 50;
const BIG_LIMIT = 500;
const WARM_BURSTS = 20;

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

describe.each(TOPOLOGIES)('$name, 3 demo processes, bursts from one client', (topology) => {
  let redis: { env: RedisEnv; close(): Promise<void> };
  let load: LoadGenerator;
  let fleet: Fleet | undefined;
  const windowMs = windowWithoutBoundary();

  beforeAll(async () => {
    redis = await topology.start();
    load = startLoadGenerator();
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
    load?.close();
    await redis?.close();
  });

  /** Admitted (200) and rejected (429) of one burst; anything else fails the test. */
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

  it.each(RATE_LIMIT_ALGORITHMS)(
    '%s: exactly the limit in every burst, cold and warm, with an instance blocked mid-burst',
    async (algo) => {
      const name = `demo.${algo}`;
      const path = `/api/${algo}`;
      const env = { RATE_LIMIT_KEY_PREFIX: uniquePrefix('load') };
      // The limit is set on a first fleet, then a fresh one takes the first burst.
      const setup = await startFleet(1, redis.env, env);
      fleet = setup;
      await setup.setPolicy(name, { limit: LIMIT, windowMs, burst: LIMIT });
      await setup.stop();
      fleet = await startFleet(INSTANCES, redis.env, env);

      const seen: Record<string, number[]> = { cold: [], warm300: [], warm1000: [] };
      seen.cold.push(await admitted(path, 1_000));
      for (let i = 0; i < WARM_BURSTS; i++) {
        seen.warm300.push(await admitted(path, 300));
        seen.warm1000.push(await admitted(path, 1_000));
      }
      // One instance spins its event loop for 250 ms while the burst is under way.
      seen.busy = [];
      for (let i = 0; i < 3; i++) {
        const busy = { url: `${fleet.targets[0]}/load-test/busy?ms=250`, atIndex: 500 };
        seen.busy.push(await admitted(path, 1_000, busy));
      }
      await fleet.setPolicy(name, { limit: BIG_LIMIT, burst: BIG_LIMIT });
      seen.big = [];
      for (let i = 0; i < 3; i++) seen.big.push(await admitted(path, 1_000));

      const faults = await fleet.faults();
      if (Object.values(faults).some((n) => n !== 0)) {
        // Says which instance failed how and when, should the assertion below fail.
        console.log(
          `${topology.name}, ${algo}: faults ${JSON.stringify(faults)}\n${await fleet.faultReport()}`,
        );
      }
      await fleet.stop();
      fleet = undefined;
      expect({ seen, faults }).toEqual({
        seen: {
          cold: [LIMIT],
          warm300: Array(WARM_BURSTS).fill(LIMIT),
          warm1000: Array(WARM_BURSTS).fill(LIMIT),
          busy: [LIMIT, LIMIT, LIMIT],
          big: [BIG_LIMIT, BIG_LIMIT, BIG_LIMIT],
        },
        faults: { fallbackDecisions: 0, redisErrors: 0, circuitOpenings: 0 },
      });
    },
    TEST_TIMEOUT_MS,
  );
});
