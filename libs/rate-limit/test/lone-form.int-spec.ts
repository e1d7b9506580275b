/**
 * The decide script's lone form (one policy on Redis time, no override key, no penalty: the
 * usual request) answers as its general form does. Both run on Redis time here, so the lone
 * client has no override key and its twin, otherwise the same, one of a missing override (which
 * sends it in the general form, as when client overrides are in use).
 */
import Redis from 'ioredis';
import { KeyBuilder } from '../src/keys/key-builder';
import { RATE_LIMIT_ALGORITHMS } from '../src/policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../src/policy/rate-limit-policy.interface';
import { loadDecideScripts } from '../src/store/redis/decide-script';
import { RedisStore } from '../src/store/redis/redis-store';
import type { StoreEntry } from '../src/store/rate-limit-store.interface';
import type { RateLimitDecision } from '../src/decision/rate-limit-decision.interface';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { policy } from './support/store-harness';

let server: TestRedis;
let redis: Redis;
let monitor: Redis;
let store: RedisStore;
const keys = new KeyBuilder(uniquePrefix());

beforeAll(async () => {
  server = await startTestRedis();
  redis = new Redis(server.url);
  monitor = new Redis(server.url);
  await redis.ping();
  store = new RedisStore({ client: redis, commandTimeoutMs: 2_000 });
});
afterAll(async () => {
  redis.disconnect();
  monitor.disconnect();
  await server.close();
});

/** The entry of `identity`; `withOverrideKey` sends it in the general form. */
function entry(p: RateLimitPolicy, identity: string, cost: number, withOverrideKey: boolean) {
  const tag = keys.identityTag(identity);
  const e: StoreEntry = { key: keys.stateKey(tag, p), blockKey: 'unused', policy: p, cost };
  return withOverrideKey ? { ...e, overrideKey: keys.clientOverrideKey(tag, p.name) } : e;
}

/** What must agree whatever the few microseconds between two calls: all but the times. */
const standing = ({ allowed, remaining, reason }: RateLimitDecision) => ({
  allowed,
  remaining,
  reason,
});

async function sequence(p: RateLimitPolicy, identity: string, general: boolean) {
  const out: ReturnType<typeof standing>[] = [];
  const consume = (cost: number) =>
    store.decide('consume', [entry(p, identity, cost, general)]).then((r) => r.decisions[0]);
  for (let i = 0; i < p.limit + 2; i++) out.push(standing(await consume(1)));
  // Above the capacity: never admissible.
  out.push(standing(await consume(p.burst + p.limit + 1)));
  const peek = await store.decide('peek', [entry(p, identity, 0, general)]);
  out.push(standing(peek.decisions[0]));
  return out;
}

describe.each(RATE_LIMIT_ALGORITHMS)('%s', (algo) => {
  it('answers as the general form: a burst past the limit, a cost above capacity, a peek', async () => {
    // A bucket's capacity is its burst, here below its limit: a form that confused the two shows.
    const bucket = algo === 'token-bucket' || algo === 'leaky-bucket' || algo === 'gcra';
    const p = policy(
      { algo, limit: 4, window: '1h', ...(bucket ? { burst: 3 } : {}) },
      `lone-${algo}`,
    );
    const lone = await sequence(p, `ip:10.9.0.1`, false);
    const general = await sequence(p, `ip:10.9.0.2`, true);
    expect(lone).toEqual(general);
    const admitted = bucket ? 3 : 4;
    expect(lone.map((o) => o.allowed)).toEqual([
      ...Array.from({ length: 6 }, (_, i) => i < admitted),
      false, // cost above capacity
      true, // peek
    ]);
    expect(lone[6]).toMatchObject({ reason: 'cost-exceeds-capacity' });
  });

  it('lets a shadow policy through and reports its refusal', async () => {
    const p = policy({ algo, limit: 1, window: '1h', mode: 'shadow' }, `lone-shadow-${algo}`);
    const e = entry(p, 'ip:10.9.0.3', 1, false);
    expect((await store.decide('consume', [e])).admitted).toBe(true);
    const second = await store.decide('consume', [e]);
    expect(second.admitted).toBe(true);
    expect(second.decisions[0]).toMatchObject({ allowed: false, reason: 'limit' });
  });
});

it('sends the lone form: one argument, no override key', async () => {
  const p = policy({ algo: 'gcra', limit: 5, window: '10s' }, 'lone-args');
  const seen: string[][] = [];
  const feed = await monitor.monitor();
  // MONITOR shows commands in the order Redis runs them: once it shows the marker, it has
  // shown both calls.
  const marked = new Promise<void>((resolve) => {
    feed.on('monitor', (_time: string, args: string[]) => {
      if (['evalsha', 'fcall'].includes(args[0]?.toLowerCase())) seen.push(args);
      if (args[0]?.toLowerCase() === 'echo') resolve();
    });
  });
  await store.decide('consume', [entry(p, 'ip:10.9.0.4', 1, false)]);
  await store.decide('consume', [entry(p, 'ip:10.9.0.4', 1, true)]);
  await redis.echo('marker');
  await marked;
  feed.disconnect();
  // FCALL (or EVALSHA), its function (or sha), numkeys, keys, args.
  expect(seen[0].slice(2)).toEqual(['1', entry(p, 'ip:10.9.0.4', 1, false).key, 'cgcra:5:10000']);
  expect(seen[1].slice(2, 6)).toEqual([
    '2',
    entry(p, 'ip:10.9.0.4', 1, true).key,
    expect.stringMatching(/:client$/),
    'consume',
  ]);
});

it("decides both forms on Redis's own time, and says so in the reply", async () => {
  const p = policy({ algo: 'fixed-window', limit: 5, window: '10s' }, 'lone-time');
  const redisNowUs = async () => {
    const [seconds, micros] = await redis.time();
    return Number(seconds) * 1_000_000 + Number(micros);
  };
  for (const general of [false, true]) {
    const before = await redisNowUs();
    const reply = await store.decide('consume', [entry(p, 'ip:10.9.0.5', 1, general)]);
    const after = await redisNowUs();
    expect(reply.decidedAtUs).toBeGreaterThanOrEqual(before);
    expect(reply.decidedAtUs).toBeLessThanOrEqual(after);
  }
});

describe.each(['functions', 'scripts'] as const)('lone specs, %s', (decideWith) => {
  it('decides right past the specs a library remembers (each cost is a spec of its own)', async () => {
    const own = new RedisStore({ client: redis, commandTimeoutMs: 2_000, decideWith });
    const p = policy(
      { algo: 'fixed-window', limit: 1_000_000_000, window: '1h' },
      `many-${decideWith}`,
    );
    // More distinct specs than decide.lua's LONE_SPECS_MAX (1,000): it forgets them and parses
    // again; every decision still counts what the ones before it charged.
    let left = p.limit;
    for (let cost = 1; cost <= 1_100; cost++) {
      const reply = await own.decide('consume', [entry(p, 'ip:10.9.0.5', cost, false)]);
      left -= cost;
      expect(reply.decisions[0]).toMatchObject({ allowed: true, remaining: left });
    }
  });
});

it('refuses a lone spec it cannot read, writing nothing', async () => {
  const name = loadDecideScripts().library.name;
  const key = `${keys.prefix}:{ip%3A10.9.0.6}:bad:gcra`;
  await store.decide('consume', [entry(policy({ algo: 'gcra' }, 'load'), 'ip:10.9.0.6', 1, false)]);
  for (const spec of [
    'cnope:5:1000',
    'xgcra:5:1000',
    'cgcra:5',
    'cgcra:5:1000:6:2:1',
    'cgcra:5:1000:6',
  ]) {
    await expect(redis.fcall(name, 1, key, spec)).rejects.toThrow(/lone spec/);
  }
  expect(await redis.exists(key)).toBe(0);
});

it("keeps at most about a thousand specs: a library's memory does not grow with distinct costs", async () => {
  const name = loadDecideScripts().library.name;
  const p = policy({ algo: 'fixed-window', limit: 1_000_000_000, window: '1h' }, 'specs-bound');
  const key = entry(p, 'ip:10.9.0.7', 1, false).key;
  await store.decide('consume', [entry(p, 'ip:10.9.0.7', 1, false)]);
  const luaMemory = async () =>
    Number(/used_memory_vm_functions:(\d+)/.exec(await redis.info('memory'))![1]);
  const before = await luaMemory();
  // 20 times the specs a library keeps (each cost is a spec of its own), in pipelines.
  for (let from = 1; from <= 20_000; from += 2_000) {
    const pipeline = redis.pipeline();
    for (let cost = from; cost < from + 2_000; cost++) {
      pipeline.fcall(name, 1, key, `cfixed-window:${p.limit}:${p.windowMs}:${p.limit}:0:${cost}`);
    }
    const replies = (await pipeline.exec())!;
    expect(replies.every(([error]) => error === null)).toBe(true);
  }
  // Kept, every spec would hold its table and string: 7.6 MB more (measured with the count never
  // reaching the bound); bounded, 0.32 MB (three runs).
  const grown = await luaMemory();
  expect(grown - before).toBeLessThan(1_500_000);
});
