import { Redis } from 'ioredis';
import type { LoadSignals } from '../src/adaptive/pressure';
import type { DirectionChange } from '../src/adaptive/direction-change';
import { AdaptiveBeat } from '../src/runtime/adaptive/adaptive-beat';
import { AdaptiveProtection } from '../src/runtime/adaptive/adaptive-protection';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { within } from './support/within';
import { CALM, SATURATED, THREE_TIERS, WARM_UPTIME_MS } from './support/adaptive-signals';

/**
 * The fleet loop of three instances on one real Redis, driven tick by tick with scripted
 * signals (one process: this checks the Redis protocol of the loop, lease and state; the
 * multi-process form under real load is the end-to-end test still to come).
 */

describe('adaptive fleet loop on one Redis', () => {
  let server: TestRedis;
  let client: Redis;
  beforeAll(async () => {
    server = await startTestRedis();
    client = new Redis(server.url);
    await client.ping(); // ready: a beat is skipped while the client is not
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.close();
  });

  function fleet(leaseMs = 3_000) {
    const beat = new AdaptiveBeat(uniquePrefix('fleet'), leaseMs);
    const instances = ['a', 'b', 'c'].map(
      (id) => new AdaptiveProtection(THREE_TIERS, id, beat, () => client, 1_000),
    );
    // What each instance's fleet loop tells its audit listener, in order.
    const changes = instances.map(() => [] as DirectionChange[]);
    instances.forEach((p, i) => p.onChange((change) => changes[i].push(change)));
    let tick = 0;
    /** One second (4 local ticks) on every instance still running, with its signals. */
    const second = async (signals: (i: number) => LoadSignals, running = instances) => {
      for (let k = 0; k < 4; k++, tick++) {
        for (const [i, p] of running.entries()) {
          for (let r = 0; r < 50; r++) p.countDecision(false);
          await p.tick(signals(i), tick * 250, WARM_UPTIME_MS + tick * 250);
        }
      }
    };
    return { beat, instances, changes, second };
  }

  it('one instance leads; a fleet-wide overload sheds the lowest tier on every instance', async () => {
    const { instances, changes, second } = fleet();
    for (let s = 0; s < 3; s++) await second(() => CALM);
    expect(instances.map((p) => p.isLeading)).toEqual([true, false, false]);
    expect(instances.every((p) => p.state?.level === 0)).toBe(true);
    for (let s = 0; s < 6; s++) await second(() => SATURATED);
    const levels = instances.map((p) => p.state?.level ?? 0);
    // The leader recorded the turn, with the signal behind it.
    expect(changes[0].map((c) => c.direction)).toEqual(['shed']);
    expect(changes[0][0].summary).toMatch(
      /^shed: free x0\.\d+, .*elu dominant, 3\/3 instances above target$/,
    );
    expect(Math.min(...levels)).toBeGreaterThan(0);
    for (const p of instances) {
      const m = p.multipliers(24 * 250);
      expect(m.free).toBeLessThan(1);
      expect(m.enterprise).toBe(1);
      if (m.pro < 1) expect(m.free).toBeCloseTo(0.2, 10);
    }
  });

  it('an overload of one instance in three leaves the fleet level at 0', async () => {
    const { instances, second } = fleet();
    for (let s = 0; s < 10; s++) await second((i) => (i === 1 ? SATURATED : CALM));
    expect(instances.every((p) => (p.state?.level ?? 0) === 0)).toBe(true);
    expect(instances[1].local.level).toBeGreaterThan(0);
  });

  it('when the leader stops, another takes the lease and continues from the published level', async () => {
    const { beat, instances, second } = fleet(300);
    for (let s = 0; s < 8; s++) await second(() => SATURATED);
    const before = instances[0].state!;
    expect(before.level).toBeGreaterThan(0);
    await within(2_000, async () => (await client.exists(beat.keys.lease)) === 0);
    await second(() => SATURATED, instances.slice(1));
    const leader = instances.slice(1).find((p) => p.isLeading)!;
    expect(leader).toBeDefined();
    const after = leader.state!;
    expect(after.epoch).toBeGreaterThan(before.epoch);
    // No jump: at most one step of the law from where the old leader left it.
    expect(Math.abs(after.level - before.level)).toBeLessThanOrEqual(0.5);
  });
});
