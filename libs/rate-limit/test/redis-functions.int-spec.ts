/**
 * The decide program as a Redis Functions library (FCALL), on Redis servers of this file's own:
 * loaded once per server, loaded again when it is gone, shared by the calls waiting for it, and
 * replaced by the scripts (EVALSHA) on a server that has no FCALL.
 */
import Redis from 'ioredis';
import { KeyBuilder } from '../src/keys/key-builder';
import { loadDecideScripts } from '../src/store/redis/decide-script';
import { RedisStore } from '../src/store/redis/redis-store';
import { commandCounts } from './support/redis-command-counts';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { Client, T0, policy } from './support/store-harness';

const { library } = loadDecideScripts();

function clientOf(store: RedisStore, identity = 'ip:10.7.0.1'): Client {
  const keys = new KeyBuilder(uniquePrefix());
  return new Client({ store, keys, keyCount: async () => 0, pttl: async () => 0 }, identity);
}

describe('the decide library on a Redis with functions', () => {
  let server: TestRedis;
  let admin: Redis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    admin = new Redis(server.url);
    redis = new Redis(server.url);
    await redis.ping();
  });
  afterAll(async () => {
    redis.disconnect();
    admin.disconnect();
    await server.close();
  });

  it('is loaded once per server, and every decision is one FCALL', async () => {
    await admin.call('FUNCTION', 'FLUSH');
    await admin.config('RESETSTAT');
    const c = clientOf(new RedisStore({ client: redis, commandTimeoutMs: 1_000 }));
    const p = policy({ algo: 'fixed-window', limit: 100, window: 10_000 });
    for (let i = 0; i < 10; i++) expect((await c.hit(p)).remaining).toBe(99 - i);
    const calls = await commandCounts(admin);
    // The first call finds no function: one FUNCTION LOAD, then the same FCALL again.
    expect(calls('fcall')).toBe(11);
    expect(calls('function\\|load')).toBe(1);
    expect(calls('evalsha') + calls('eval')).toBe(0);
    const listed = (await admin.call(
      'FUNCTION',
      'LIST',
      'LIBRARYNAME',
      library.library,
    )) as unknown[];
    expect(listed).toHaveLength(1);
  });

  it('loads it again after FUNCTION FLUSH and keeps counting (a call that found none did not run)', async () => {
    const c = clientOf(new RedisStore({ client: redis, commandTimeoutMs: 1_000 }));
    const p = policy({ algo: 'gcra', limit: 3, window: 10_000 });
    expect((await c.hit(p, T0)).remaining).toBe(2);
    await admin.call('FUNCTION', 'FLUSH');
    expect((await c.hit(p, T0)).remaining).toBe(1);
    expect((await c.hit(p, T0)).remaining).toBe(0);
    expect((await c.hit(p, T0)).allowed).toBe(false);
  });

  it('calls in flight that find no function share one FUNCTION LOAD', async () => {
    await admin.call('FUNCTION', 'FLUSH');
    await admin.config('RESETSTAT');
    const store = new RedisStore({ client: redis, commandTimeoutMs: 1_000 });
    const p = policy({ algo: 'token-bucket', limit: 100, window: 10_000 });
    // An explicit time bypasses the batcher: 50 calls at once, as a cluster sends a burst.
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => clientOf(store, `ip:10.8.0.${i}`).hit(p, T0)),
    );
    expect(outcomes.every((o) => o.allowed && o.remaining === 99)).toBe(true);
    const calls = await commandCounts(admin);
    expect(calls('function\\|load')).toBe(1);
    expect(calls('fcall')).toBe(100);
    expect(calls('evalsha') + calls('eval')).toBe(0);
  });

  it('instances that load it at once both go on by FCALL ("already exists" is no failure)', async () => {
    await admin.call('FUNCTION', 'FLUSH');
    // Two stores as two instances: each its own program, as separate processes have.
    const stores = [1, 2].map(
      () =>
        new RedisStore({ client: redis, commandTimeoutMs: 1_000, scripts: loadDecideScripts() }),
    );
    const p = policy({ algo: 'sliding-window', limit: 2, window: 10_000 });
    const keys = new KeyBuilder(uniquePrefix());
    const clients = stores.map(
      (store) => new Client({ store, keys, keyCount: async () => 0, pttl: async () => 0 }, 'ip:1'),
    );
    const first = await Promise.all(clients.map((c) => c.hit(p, T0)));
    expect(first.map((o) => o.allowed)).toEqual([true, true]);
    await admin.config('RESETSTAT');
    expect((await clients[0].hit(p, T0)).allowed).toBe(false);
    expect((await clients[1].hit(p, T0)).allowed).toBe(false);
    const calls = await commandCounts(admin);
    expect(calls('fcall')).toBe(2);
    expect(calls('evalsha') + calls('eval')).toBe(0);
  });
});

describe('for a user whose ACL refuses FUNCTION LOAD', () => {
  let server: TestRedis;
  let admin: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    admin = new Redis(server.url);
    await admin.acl('SETUSER', 'limiter', 'on', '>secret', '~*', '&*', '+@all', '-function');
  });
  afterAll(async () => {
    admin.disconnect();
    await server.close();
  });

  it('decides by the scripts once the load is refused, not trying to load before every call', async () => {
    const redis = new Redis(server.url, { username: 'limiter', password: 'secret' });
    await redis.ping();
    await admin.config('RESETSTAT');
    const c = clientOf(new RedisStore({ client: redis, commandTimeoutMs: 1_000 }));
    const p = policy({ algo: 'sliding-window-counter', limit: 4, window: 10_000 });
    for (let i = 0; i < 4; i++) expect((await c.hit(p, T0)).remaining).toBe(3 - i);
    expect((await c.hit(p, T0)).allowed).toBe(false);
    const calls = await commandCounts(admin);
    // One FCALL finds no function and its load is refused; every call after it is a script's.
    expect(calls('fcall')).toBe(1);
    expect(calls('evalsha')).toBe(6); // NOSCRIPT once, then SCRIPT LOAD and EVALSHA again
    redis.disconnect();
  });
});

describe('on a Redis without FCALL (renamed away, as a Redis 6 has none)', () => {
  let server: TestRedis;
  let admin: Redis;

  beforeAll(async () => {
    server = await startTestRedis({ args: ['--rename-command', 'FCALL', ''] });
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.close();
  });

  it('decides by the scripts from the first call on, and tries FCALL no more', async () => {
    const redis = new Redis(server.url);
    await redis.ping();
    const c = clientOf(new RedisStore({ client: redis, commandTimeoutMs: 1_000 }));
    const p = policy({ algo: 'leaky-bucket', limit: 5, window: 10_000 });
    await admin.config('RESETSTAT');
    for (let i = 0; i < 5; i++) expect((await c.hit(p, T0)).remaining).toBe(4 - i);
    expect((await c.hit(p, T0)).allowed).toBe(false);
    const calls = await commandCounts(admin);
    // The first script call finds no script: NOSCRIPT, SCRIPT LOAD, EVALSHA again.
    expect(calls('evalsha')).toBe(7);
    expect(calls('function\\|load')).toBe(0);
    redis.disconnect();
  });
});
