/**
 * Tiers and client overrides where users run them: two demo processes (`node
 * dist/apps/demo/main.js`) on one Redis or on a 3-master Cluster, bursts of 300 concurrent
 * requests from a load generator in its own process, each burst one client. For every algorithm,
 * each tier admits exactly its own capacity; a client override set through one instance is
 * enforced exactly by the other from its very first request (quota, allow, deny); a tier
 * changed on one instance is applied by the other within 100 ms; no decision leaves Redis.
 */
import { RATE_LIMIT_ALGORITHMS } from '../../libs/rate-limit/src/policy/rate-limit-algorithm';
import { startTestCluster } from '../../libs/rate-limit/test/support/redis-cluster';
import { startTestRedis, uniquePrefix } from '../../libs/rate-limit/test/support/redis-test-server';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';
import { ADMIN_TOKEN, type Fleet, type RedisEnv, startFleet } from '../support/demo-fleet';
import {
  type LoadGenerator,
  newSourceAddress,
  startLoadGenerator,
} from '../support/load-generator';

const POLICY = 'demo.plan';
const BURST = 300;
const TEST_TIMEOUT_MS = 240_000;
const auth = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' };

const TOPOLOGIES = [
  {
    name: 'one redis-server',
    async start() {
      const redis = await startTestRedis();
      return { env: { REDIS_URL: redis.url } as RedisEnv, close: () => redis.close() };
    },
  },
  {
    name: 'a 3-master Redis Cluster',
    async start() {
      const cluster = await startTestCluster({ masters: 3, replicasPerMaster: 0 });
      const nodes = cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',');
      return { env: { REDIS_CLUSTER_NODES: nodes } as RedisEnv, close: () => cluster.close() };
    },
  },
];

describe.each(TOPOLOGIES)('$name, 2 demo processes: tiers and client overrides', (topology) => {
  let redis: { env: RedisEnv; close(): Promise<void> };
  let load: LoadGenerator;
  let fleet: Fleet;
  const figures: string[] = [];

  beforeAll(async () => {
    redis = await topology.start();
    load = startLoadGenerator();
    fleet = await startFleet(2, redis.env, { RATE_LIMIT_KEY_PREFIX: uniquePrefix('tiers') });
  }, 60_000);
  afterAll(async () => {
    console.log(`${topology.name}:\n${figures.join('\n')}`);
    await fleet?.stop();
    load?.close();
    await redis?.close();
  });

  /** Admitted requests of one burst from a new client, through `targets`. */
  async function admitted(
    headers: Record<string, string>,
    sourceAddress = newSourceAddress(),
    targets = fleet.targets,
  ) {
    const result = await load.burst({
      targets,
      path: '/api/plan',
      count: BURST,
      sourceAddress,
      headers,
    });
    const { 200: ok = 0, 429: rejected = 0, ...others } = result.statuses;
    expect(others).toEqual({});
    expect(ok + rejected).toBe(BURST);
    return ok;
  }

  async function admin(instance: number, method: string, path: string, body?: unknown) {
    const response = await fetch(`${fleet.targets[instance]}/admin/policies/${POLICY}${path}`, {
      method,
      headers: auth,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }

  const tierLimit = async (instance: number, tier: string): Promise<number> => {
    const view = await admin(instance, 'GET', '');
    const tiers = view.tiers as { name: string; limit: number }[];
    return tiers.find((t) => t.name === tier)!.limit;
  };

  it.each(RATE_LIMIT_ALGORITHMS)(
    '%s: exact counts per tier and per overridden client, on both instances',
    async (algo) => {
      const windowMs = windowWithoutBoundary();
      await fleet.setPolicy(POLICY, { algo, windowMs, limit: 5 });
      const bucket = ['token-bucket', 'leaky-bucket', 'gcra'].includes(algo);
      const seen: Record<string, number> = {};
      seen.free = await admitted({});
      seen.unknownPlan = await admitted({ 'X-Plan': 'platinum' });
      seen.pro = await admitted({ 'X-Plan': 'pro' });
      seen.enterprise = await admitted({ 'X-Plan': 'enterprise' });

      // A client override written through instance 0, then a burst on instance 1 alone.
      const set = async (body: Record<string, unknown>) => {
        const address = newSourceAddress();
        await admin(0, 'PUT', `/clients/${encodeURIComponent(`ip:${address}`)}`, body);
        return admitted({ 'X-Plan': 'pro' }, address, [fleet.targets[1]]);
      };
      seen.quota = await set({ limit: 37 });
      seen.allow = await set({ action: 'allow' });
      seen.deny = await set({ action: 'deny', message: 'suspended' });

      // A tier changed on instance 0 is applied by instance 1 within 100 ms.
      const started = performance.now();
      await admin(0, 'PATCH', '/tiers/pro', { limit: 30 });
      while ((await tierLimit(1, 'pro')) !== 30) await new Promise((r) => setImmediate(r));
      const propagationMs = performance.now() - started;
      seen.proAfterChange = await admitted({ 'X-Plan': 'pro' });
      await admin(0, 'DELETE', '/tiers/pro/override');
      while ((await tierLimit(1, 'pro')) !== 20) await new Promise((r) => setImmediate(r));
      figures.push(`${algo}: tier PATCH on 0 -> applied on 1 after ${propagationMs.toFixed(1)} ms`);

      expect(propagationMs).toBeLessThan(100);
      expect({ seen, faults: await fleet.faults() }).toEqual({
        seen: {
          free: 5,
          unknownPlan: 5,
          pro: 20,
          enterprise: bucket ? 100 : 50,
          quota: 37,
          allow: BURST,
          deny: 0,
          proAfterChange: 30,
        },
        faults: { fallbackDecisions: 0, redisErrors: 0, circuitOpenings: 0 },
      });
    },
    TEST_TIMEOUT_MS,
  );

  it('a temporary client override vanishes by itself on time, on both instances', async () => {
    await fleet.setPolicy(POLICY, { algo: 'fixed-window', windowMs: windowWithoutBoundary() });
    const address = newSourceAddress();
    const path = `/clients/${encodeURIComponent(`ip:${address}`)}`;
    // In force for the first burst whatever its length (through two instances it took
    // hundreds of ms: one of 1 s could end during it)...
    await admin(0, 'PUT', path, { action: 'deny', expiresAt: Date.now() + 60_000 });
    // The other tests' overrides are listed too: only this client's presence is looked at.
    const listedNow = async () => {
      const page = await admin(1, 'GET', '/clients?count=1000');
      return (page.items as { identity: string }[]).some((i) => i.identity === `ip:${address}`);
    };
    const listedBefore = await listedNow();
    const before = await admitted({}, address);
    // ...then written again to end in a second.
    const expiresAt = Date.now() + 1_000;
    await admin(0, 'PUT', path, { action: 'deny', expiresAt });
    // Waits on the clock itself: the expiry is the event under test.
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 5));
    const after = await admitted({}, address);
    const listedAfter = await listedNow();
    expect({ before, after, listedBefore, listedAfter }).toEqual({
      before: 0,
      after: 5,
      listedBefore: true,
      listedAfter: false,
    });
  });
});
