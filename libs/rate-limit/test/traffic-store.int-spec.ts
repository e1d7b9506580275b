import Redis from 'ioredis';
import { RedisTrafficStore } from '../src/backends/redis/redis-traffic-store';
import { MemoryTrafficStore } from '../src/backends/memory/memory-traffic-store';
import {
  BUCKET_MS,
  SEGMENT_MS,
  SERIES_SPAN_MS,
  bucketOf,
} from '../src/runtime/traffic/traffic-buckets';
import {
  TrafficStoreNotReady,
  type BucketCounts,
  type TrafficStore,
} from '../src/runtime/traffic/traffic-store';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';

/**
 * The dashboard's traffic store on a real Redis and in memory: sums, bounds and expiry. The
 * memory figure is the series' whole Redis cost per policy at its hostile extreme: every bucket
 * of the hour holding all three outcomes with counts near 2^53.
 */
describe('traffic store', () => {
  let redis: TestRedis;
  let client: Redis;

  beforeAll(async () => {
    redis = await startTestRedis();
    client = new Redis(redis.url);
    await new Promise((resolve) => client.once('ready', resolve));
  });
  afterAll(async () => {
    client.disconnect();
    await redis.close();
  });

  const hour = (policy: string, now: number, count: number): BucketCounts[] => {
    const out: BucketCounts[] = [];
    for (let b = bucketOf(now) - SERIES_SPAN_MS + BUCKET_MS; b <= bucketOf(now); b += BUCKET_MS) {
      out.push({
        policy,
        bucket: b,
        counts: { allowed: count, rejected: count, shadowRejected: count },
      });
    }
    return out;
  };

  it.each([
    ['redis', () => new RedisTrafficStore(client, uniquePrefix())],
    ['memory', () => new MemoryTrafficStore()],
  ] as [string, () => TrafficStore][])(
    '%s: sums writes per bucket and reads dense columns',
    async (_, make) => {
      const store = make();
      const now = Date.now();
      const b = bucketOf(now);
      await store.write(
        [{ policy: 'p', bucket: b, counts: { allowed: 2, rejected: 1, shadowRejected: 0 } }],
        new Map(),
        now,
      );
      await store.write(
        [{ policy: 'p', bucket: b, counts: { allowed: 3, rejected: 0, shadowRejected: 4 } }],
        new Map(),
        now,
      );
      await store.write(
        [
          {
            policy: 'p',
            bucket: b - BUCKET_MS,
            counts: { allowed: 1, rejected: 0, shadowRejected: 0 },
          },
        ],
        new Map(),
        now,
      );
      const series = (await store.series(['p', 'q'], b - 2 * BUCKET_MS, b)).get('p')!;
      expect(series).toEqual({
        allowed: [0, 1, 5],
        rejected: [0, 0, 1],
        shadowRejected: [0, 0, 4],
      });
      expect((await store.series(['q'], b - BUCKET_MS, b)).get('q')!.allowed).toEqual([0, 0]);
    },
  );

  it.each([
    ['redis', () => new RedisTrafficStore(client, uniquePrefix())],
    ['memory', () => new MemoryTrafficStore()],
  ] as [string, () => TrafficStore][])(
    '%s: merges rejected clients over minutes and instances, highest first',
    async (_, make) => {
      const store = make();
      const now = Date.now();
      await store.write(
        [],
        new Map([
          [
            'p',
            [
              ['ip:a', 5],
              ['ip:b', 2],
            ],
          ],
        ]),
        now,
      );
      await store.write([], new Map([['p', [['ip:b', 4]]]]), now); // another instance
      await store.write([], new Map([['p', [['ip:c', 9]]]]), now - 60_000);
      await store.write([], new Map([['p', [['ip:d', 50]]]]), now - 11 * 60_000); // too old
      const minute = Math.floor(now / 60_000) * 60_000;
      expect(await store.topRejected('p', minute - 60_000, minute, 10)).toEqual([
        ['ip:c', 9],
        ['ip:b', 6],
        ['ip:a', 5],
      ]);
      expect(await store.topRejected('p', minute, minute, 1)).toEqual([['ip:b', 6]]);
    },
  );

  it('keeps a full hour of one policy in at most 13 compact hashes, all expiring', async () => {
    const prefix = uniquePrefix();
    const store = new RedisTrafficStore(client, prefix);
    const now = Date.now();
    await store.write(hour('p', now, 2 ** 52), new Map(), now);
    const keys = await client.keys(`${prefix}:traffic:p:*`);
    expect(keys.length).toBeLessThanOrEqual(SERIES_SPAN_MS / SEGMENT_MS + 1);
    let bytes = 0;
    for (const key of keys) {
      expect(await client.object('ENCODING', key)).toBe('listpack');
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(SERIES_SPAN_MS + SEGMENT_MS);
      bytes += Number(await client.memory('USAGE', key));
    }
    // Reported in the README: the series' Redis memory per policy.
    console.log(`traffic series, one policy, full hour: ${keys.length} keys, ${bytes} bytes`);
    expect(bytes).toBeLessThan(24_000);
    const series = (
      await store.series(['p'], bucketOf(now) - SERIES_SPAN_MS + BUCKET_MS, bucketOf(now))
    ).get('p')!;
    expect(series.allowed.every((n) => n === 2 ** 52)).toBe(true);
  });

  it('sends nothing through a client that is not connected: it says so, for a later try', async () => {
    const idle = new Redis(redis.url, { lazyConnect: true });
    const store = new RedisTrafficStore(idle, uniquePrefix());
    const now = Date.now();
    await expect(store.write(hour('p', now, 1), new Map(), now)).rejects.toBeInstanceOf(
      TrafficStoreNotReady,
    );
    idle.disconnect();
  });

  it('fails a write that Redis refused in part (a key of another type): the flush is not taken as done', async () => {
    const prefix = uniquePrefix();
    const store = new RedisTrafficStore(client, prefix);
    const now = Date.now();
    const segment = Math.floor(bucketOf(now) / SEGMENT_MS) * SEGMENT_MS;
    await client.set(`${prefix}:traffic:p:${segment / 1000}`, 'junk');
    await expect(store.write(hour('p', now, 1).slice(-1), new Map(), now)).rejects.toThrow(
      /WRONGTYPE/,
    );
  });

  it('reads a key written by hand with another type as empty, for that policy alone', async () => {
    const prefix = uniquePrefix();
    const store = new RedisTrafficStore(client, prefix);
    const now = Date.now();
    await store.write(
      hour('p', now, 1)
        .slice(-1)
        .concat(hour('q', now, 1).slice(-1)),
      new Map(),
      now,
    );
    const segment = Math.floor(bucketOf(now) / SEGMENT_MS) * SEGMENT_MS;
    await client.del(`${prefix}:traffic:p:${segment / 1000}`);
    await client.set(`${prefix}:traffic:p:${segment / 1000}`, 'junk');
    await client.hset(`${prefix}:traffic:q:${segment / 1000}`, 'junk', 'x', '99a', '5');
    const read = await store.series(['p', 'q'], bucketOf(now), bucketOf(now));
    expect(read.get('p')!.allowed).toEqual([0]);
    expect(read.get('q')!.allowed).toEqual([1]);
  });
});
