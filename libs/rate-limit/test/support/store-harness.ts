import Redis from 'ioredis';
import { KeyBuilder } from '../../src/keys/key-builder';
import { storeEntry } from '../../src/engine/request-groups';
import { normalizePolicy } from '../../src/policy/normalize-policy';
import type { RateLimitOptions } from '../../src/policy/rate-limit-options.interface';
import type { RateLimitPolicy } from '../../src/policy/rate-limit-policy.interface';
import { MemoryStore } from '../../src/store/memory/memory-store';
import type {
  RateLimitStore,
  StoreEntry,
  StoreOp,
  StoreReply,
} from '../../src/store/rate-limit-store.interface';
import type { RateLimitDecision } from '../../src/decision/rate-limit-decision.interface';
import { RedisStore } from '../../src/store/redis/redis-store';
import {
  deleteKeysWithPrefix,
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from './redis-test-server';

/** One store under test plus the inspection a conformance test needs. */
export interface StoreUnderTest {
  readonly store: RateLimitStore;
  readonly keys: KeyBuilder;
  /** Keys this test's store holds right now (expired ones excluded). */
  keyCount(): Promise<number>;
  /** Milliseconds to live of a key; -2 when missing. */
  pttl(key: string): Promise<number>;
}

export interface StoreFactory {
  /** 'redis': the decide library (FCALL); 'redis scripts': the same program by EVALSHA. */
  readonly name: 'redis' | 'redis scripts' | 'memory';
  setup(): Promise<void>;
  create(): Promise<StoreUnderTest>;
  teardown(): Promise<void>;
  /** Redis only: the admin connection, for SCRIPT FLUSH and the like. */
  admin?(): Redis;
}

/**
 * Stores on a Redis of the factory's own. `decideWith`: how they run the decide program (FCALL
 * of the library by default, as applications do on Redis 7; or EVALSHA of the scripts, what a
 * Redis without functions runs).
 */
export function redisFactory(
  decideWith: 'functions' | 'scripts' = 'functions',
): StoreFactory & { admin(): Redis; server(): TestRedis } {
  let server: TestRedis;
  let admin: Redis;
  const clients: Redis[] = [];
  return {
    name: decideWith === 'functions' ? 'redis' : 'redis scripts',
    async setup() {
      server = await startTestRedis();
      admin = new Redis(server.url);
    },
    async create() {
      const prefix = uniquePrefix();
      const client = new Redis(server.url, { enableOfflineQueue: true });
      clients.push(client);
      await client.ping();
      return {
        store: new RedisStore({ client: client, commandTimeoutMs: 2_000, decideWith }),
        keys: new KeyBuilder(prefix),
        keyCount: async () => (await admin.keys(`${prefix}:*`)).length,
        pttl: (key) => admin.pttl(key),
      };
    },
    async teardown() {
      for (const client of clients) client.disconnect();
      await admin.quit();
      await server.close();
    },
    admin: () => admin,
    server: () => server,
  };
}

export function memoryFactory(): StoreFactory {
  const stores: MemoryStore[] = [];
  return {
    name: 'memory',
    async setup() {},
    async create() {
      const store = new MemoryStore();
      stores.push(store);
      return {
        store,
        keys: new KeyBuilder(uniquePrefix()),
        keyCount: async () => {
          store.keyspace.sweep();
          return store.keyspace.size;
        },
        pttl: async (key) => store.keyspace.pttl(key),
      };
    },
    async teardown() {
      for (const store of stores) store.close();
    },
  };
}

export { deleteKeysWithPrefix };

export function policy(
  options: Partial<RateLimitOptions> & { algo: RateLimitPolicy['algo'] },
  name = 'p',
): RateLimitPolicy {
  return normalizePolicy({ limit: 5, window: 10_000, ...options }, name, 'test');
}

/** A caller bound to one store, one identity and one or more policies. */
export class Client {
  constructor(
    private readonly sut: StoreUnderTest,
    readonly identity: string,
  ) {}

  entry(p: RateLimitPolicy, cost = 1): StoreEntry {
    return storeEntry(this.sut.keys, p, this.sut.keys.identityTag(this.identity), cost);
  }

  run(
    op: StoreOp,
    policies: readonly RateLimitPolicy[],
    nowMs?: number,
    cost = 1,
  ): Promise<StoreReply> {
    const nowUs = nowMs === undefined ? undefined : Math.round(nowMs * 1000);
    return this.sut.store.decide(
      op,
      policies.map((p) => this.entry(p, cost)),
      nowUs,
    );
  }

  async hit(p: RateLimitPolicy, nowMs?: number, cost = 1): Promise<RateLimitDecision> {
    return (await this.run('consume', [p], nowMs, cost)).decisions[0];
  }

  /** Gives back `cost` charged at `chargedAtMs` (the refund of an all-or-nothing request). */
  async refund(p: RateLimitPolicy, nowMs: number, chargedAtMs: number, cost = 1): Promise<void> {
    const us = (ms: number) => Math.round(ms * 1000);
    await this.sut.store.decide('refund', [this.entry(p, cost)], us(nowMs), us(chargedAtMs));
  }

  async peek(p: RateLimitPolicy, nowMs?: number): Promise<RateLimitDecision> {
    return (await this.run('peek', [p], nowMs, 0)).decisions[0];
  }
}

/** A time well inside a window for every window length used here (aligned to 1 day + 1 s). */
export const T0 = Math.floor(Date.UTC(2030, 0, 1) / 86_400_000) * 86_400_000 + 1_000;
