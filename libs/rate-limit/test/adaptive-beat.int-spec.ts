import { Redis } from 'ioredis';
import { decodeAdaptiveState, encodeAdaptiveState } from '../src/adaptive/published-state';
import { AdaptiveBeat } from '../src/runtime/adaptive/adaptive-beat';
import { RedisPolicyChannel } from '../src/backends/redis/redis-policy-channel';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { within } from './support/within';

/** Adaptive protection's heartbeat on a real Redis: loads, the leader's lease, the state. */
describe('AdaptiveBeat (adaptive-beat.lua)', () => {
  let server: TestRedis;
  let client: Redis;
  beforeAll(async () => {
    server = await startTestRedis();
    client = new Redis(server.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.close();
  });

  /**
   * Leases long enough that no stall of this host ends one between two calls of a test (a lease
   * of 300 ms did, in principle); a lease's end is brought forward instead of waited for.
   */
  const LEASE_MS = 60_000;
  async function runOut(beat: AdaptiveBeat): Promise<void> {
    await client.pexpire(beat.keys.lease, 1);
    await within(2_000, async () => (await client.exists(beat.keys.lease)) === 0);
  }

  it('the first instance to beat leads and sees every fresh load; the others only beat', async () => {
    const beat = new AdaptiveBeat(uniquePrefix('beat'));
    const a = await beat.beat(client, 'a', '0.5,elu,120', 1_000);
    const b = await beat.beat(client, 'b', '1.2,eventLoopDelayMs,80', 1_000);
    expect(a).toMatchObject({ leading: true, state: undefined });
    expect(b).toMatchObject({ leading: false, loads: [] });
    const again = await beat.beat(client, 'a', '0.6,elu,130', 1_000);
    expect(again.leading).toBe(true);
    expect(again.loads.map((l) => [l.id, l.load]).sort()).toEqual([
      ['a', '0.6,elu,130'],
      ['b', '1.2,eventLoopDelayMs,80'],
    ]);
    // Redis time: both reports are from this second, and the beat says when it ran.
    for (const load of again.loads) expect(again.nowMs - load.reportedAt).toBeLessThan(1_000);
  });

  it('a leader that stops beating loses the lease after its length; another takes over', async () => {
    const beat = new AdaptiveBeat(uniquePrefix('beat'), LEASE_MS);
    expect((await beat.beat(client, 'a', 'x', 1_000)).leading).toBe(true);
    expect((await beat.beat(client, 'b', 'y', 1_000)).leading).toBe(false);
    const pttl = await client.pttl(beat.keys.lease);
    expect(pttl).toBeGreaterThan(LEASE_MS - 5_000);
    expect(pttl).toBeLessThanOrEqual(LEASE_MS);
    // 'a' is gone: no event says so but the key's expiry (brought forward: see LEASE_MS).
    await runOut(beat);
    expect((await beat.beat(client, 'b', 'y', 1_000)).leading).toBe(true);
    expect((await beat.beat(client, 'a', 'x', 1_000)).leading).toBe(false);
  });

  it('the leader deletes loads older than their freshness and reads the published state', async () => {
    const beat = new AdaptiveBeat(uniquePrefix('beat'));
    await beat.beat(client, 'a', 'x', 1_000);
    const [seconds] = await client.time();
    await client.hset(beat.keys.loads, 'dead', `${(Number(seconds) - 10) * 1_000},z`);
    await client.hset(beat.keys.loads, 'garbage', 'not-a-load');
    await client.set(beat.keys.state, '[3,0.5,0,1]');
    const reply = await beat.beat(client, 'a', 'x', 1_000);
    expect(reply.loads.map((l) => l.id)).toEqual(['a']);
    expect(reply.state).toBe('[3,0.5,0,1]');
    expect(await client.hkeys(beat.keys.loads)).toEqual(['a']);
  });

  it('the leader publishes with the next epoch and Redis time; a deposed leader writes nothing', async () => {
    const beat = new AdaptiveBeat(uniquePrefix('beat'), LEASE_MS);
    await beat.beat(client, 'a', 'x', 1_000);
    const first = decodeAdaptiveState((await beat.publish(client, 'a', 0.5, 0, 1_000))!);
    const second = decodeAdaptiveState((await beat.publish(client, 'a', 1, 0, 1_000))!);
    expect(first).toMatchObject({ epoch: 1, level: 0.5, boost: 0 });
    expect(second).toMatchObject({ epoch: 2, level: 1, boost: 0 });
    expect(second!.at).toBeGreaterThanOrEqual(first!.at);
    expect(await beat.publish(client, 'b', 0, 0.2, 1_000)).toBeUndefined();
    await runOut(beat);
    await beat.beat(client, 'b', 'y', 1_000);
    // 'a' lost the lease: its write is refused, 'b' continues the epochs.
    expect(await beat.publish(client, 'a', 2, 0, 1_000)).toBeUndefined();
    const third = decodeAdaptiveState((await beat.publish(client, 'b', 0, 0.05, 1_000))!);
    expect(third).toMatchObject({ epoch: 3, level: 0, boost: 0.05 });
    expect((await beat.beat(client, 'b', 'y', 1_000)).state).toBe(encodeAdaptiveState(third!));
    await expect(beat.publish(client, 'b', Number.NaN, 0, 1_000)).rejects.toThrow(RangeError);
  });

  it('announces each state it writes on the policy channel; a deposed leader announces nothing', async () => {
    const prefix = uniquePrefix('beat');
    const beat = new AdaptiveBeat(prefix, 300);
    const channel = new RedisPolicyChannel(client, prefix);
    const heard: string[] = [];
    channel.onAdaptiveState((state) => heard.push(state));
    await channel.subscribe(2_000);
    try {
      await beat.beat(client, 'a', 'x', 1_000);
      const written = await beat.publish(client, 'a', 0.5, 0, 1_000);
      expect(await beat.publish(client, 'b', 1, 0, 1_000)).toBeUndefined();
      // Pub/Sub delivers in order: once a later message is heard, so was the earlier one.
      await client.publish(`${prefix}:policy-changes`, '{"adaptive":"end"}');
      await within(2_000, async () => heard.includes('end'));
      expect(heard).toEqual([written, 'end']);
    } finally {
      await channel.close();
    }
  });

  it('keeps its keys in one Cluster slot', () => {
    const { loads, lease, state } = new AdaptiveBeat('rl').keys;
    for (const key of [loads, lease, state]) expect(key).toMatch(/^rl:\{adaptive\}:/);
  });
});
