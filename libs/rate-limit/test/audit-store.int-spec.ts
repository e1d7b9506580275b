import Redis from 'ioredis';
import { AUDIT_CAP, POLICY_AUDIT_CAP, type AuditEntry } from '../src/runtime/audit/audit-entry';
import type { AuditStore } from '../src/runtime/audit/audit-store';
import { MemoryAuditStore } from '../src/backends/memory/memory-audit-store';
import { RedisAuditStore } from '../src/backends/redis/redis-audit-store';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';

/** The audit log's two stores, on a real Redis and in memory: the same caps and rules. */
describe('audit store', () => {
  let redis: TestRedis;
  let client: Redis;

  beforeAll(async () => {
    redis = await startTestRedis();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client.disconnect();
    await redis.close();
  });

  const entry = (n: number, policy = 'p', source: 'api' | 'hash' = 'api'): AuditEntry => ({
    at: n,
    policy,
    action: source === 'api' ? 'update' : 'hash-write',
    before: { limit: n - 1 },
    after: { limit: n },
    instance: 'i',
    source,
  });
  const stores: [string, (windowMs?: number) => AuditStore][] = [
    ['redis', (windowMs = 60_000) => new RedisAuditStore(client, uniquePrefix(), windowMs)],
    ['memory', (windowMs = 60_000) => new MemoryAuditStore(windowMs)],
  ];

  it.each(stores)('%s: keeps the newest entries, capped in all and per policy', async (_, make) => {
    const store = make();
    for (let n = 1; n <= POLICY_AUDIT_CAP + 5; n++) await store.append(entry(n, 'busy'));
    await store.append(entry(1, 'quiet'));
    for (let n = 1; n <= AUDIT_CAP; n++) await store.append(entry(n, 'busy'));
    const all = await store.list(undefined, AUDIT_CAP);
    expect(all).toHaveLength(AUDIT_CAP);
    expect(all[0].at).toBe(AUDIT_CAP);
    expect(await store.list('busy', 1_000)).toHaveLength(POLICY_AUDIT_CAP);
    // A busy policy pushes the quiet one out of the whole log, never out of its own.
    expect(all.some((e) => e.policy === 'quiet')).toBe(false);
    expect(await store.list('quiet', 50)).toEqual([entry(1, 'quiet')]);
    expect(await store.list('busy', 3)).toHaveLength(3);
  });

  it.each(stores)(
    '%s: logs a direct write once; the first state is a baseline',
    async (_, make) => {
      const store = make();
      expect(await store.appendIfChanged(entry(1, 'p', 'hash'), '{"limit":1}')).toBe(false);
      expect(await store.appendIfChanged(entry(1, 'p', 'hash'), '{"limit":1}')).toBe(false);
      expect(await store.appendIfChanged(entry(2, 'p', 'hash'), '{"limit":2}')).toBe(true);
      expect(await store.appendIfChanged(entry(2, 'p', 'hash'), '{"limit":2}')).toBe(false);
      await store.append(entry(3), '{"limit":3}');
      expect(await store.appendIfChanged(entry(3, 'p', 'hash'), '{"limit":3}')).toBe(false);
      expect((await store.list('p', 10)).map((e) => [e.at, e.source])).toEqual([
        [3, 'api'],
        [2, 'hash'],
      ]);
    },
  );

  it.each(stores)(
    '%s: two API writes recorded out of order are not taken for a direct write',
    async (_, make) => {
      const store = make();
      await store.appendIfChanged(entry(0, 'p', 'hash'), 'null');
      // A wrote {limit}, B then {limit, burst}; B's record lands first, A's last.
      await store.append(entry(2), '{"burst":9,"limit":4}');
      await store.append(entry(1), '{"limit":4}');
      expect(await store.appendIfChanged(entry(3, 'p', 'hash'), '{"burst":9,"limit":4}')).toBe(
        false,
      );
      expect(await store.list('p', 10)).toHaveLength(2);
    },
  );

  it.each(stores)(
    '%s: a direct write back to an API state is logged once that state is no longer recent',
    async (_, make) => {
      const store = make(100);
      await store.appendIfChanged(entry(0, 'p', 'hash'), 'null');
      await store.append(entry(1), '{"limit":4}');
      await store.appendIfChanged(entry(2, 'p', 'hash'), '{"limit":5}');
      // A time window has no event to await: let it pass.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await store.appendIfChanged(entry(3, 'p', 'hash'), '{"limit":4}')).toBe(true);
    },
  );

  it.each(stores)(
    '%s: logs a direct write back to a state the API wrote lately, and keeps few API states',
    async (_, make) => {
      const store = make();
      await store.appendIfChanged(entry(0, 'p', 'hash'), 'null');
      await store.append(entry(1), '{"limit":4}');
      expect(await store.appendIfChanged(entry(2, 'p', 'hash'), '{"limit":4}')).toBe(false);
      expect(await store.appendIfChanged(entry(3, 'p', 'hash'), '{"limit":5}')).toBe(true);
      expect(await store.appendIfChanged(entry(4, 'p', 'hash'), 'null')).toBe(true);
      expect(await store.appendIfChanged(entry(5, 'p', 'hash'), '{"limit":4}')).toBe(true);
    },
  );

  it('keeps the API states of the last window only, whatever the number of API writes', async () => {
    const prefix = uniquePrefix();
    const store = new RedisAuditStore(client, prefix, 100);
    for (let n = 0; n < 20; n++) await store.append(entry(n), `{"limit":${n}}`);
    expect(await client.zcard(`${prefix}:audit:{audit}:api:p`)).toBe(20);
    // A time window has no event to await: let it pass.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await store.append(entry(99), '{"limit":99}');
    expect(await client.zcard(`${prefix}:audit:{audit}:api:p`)).toBe(1);
  });

  it('reads a log key of another type (written by hand) as empty, and skips junk entries', async () => {
    const prefix = uniquePrefix();
    const store = new RedisAuditStore(client, prefix, 60_000);
    await client.set(`${prefix}:audit:{audit}`, 'junk');
    expect(await store.list(undefined, 10)).toEqual([]);
    await client.del(`${prefix}:audit:{audit}`);
    await store.append(entry(1));
    await client.lpush(
      `${prefix}:audit:{audit}`,
      '{"policy":"p"}',
      '{"policy":"p","at":"x","action":"update","instance":"i","source":"api","before":null,"after":null}',
      'not json',
      '[]',
    );
    expect(await store.list(undefined, 10)).toEqual([entry(1)]);
  });
});
