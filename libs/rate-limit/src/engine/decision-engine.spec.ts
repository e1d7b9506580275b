import { resolveModuleOptions } from '../config/resolve-module-options';
import { DuplicatePolicyError } from '../errors/duplicate-policy.error';
import { normalizePolicy } from '../policy/normalize-policy';
import { PolicyRegistry } from '../registry/policy-registry';
import { MemoryStore } from '../store/memory/memory-store';
import { DecisionEngine } from './decision-engine';
import { FallbackStore } from './fallback-store';
import { storeEntry } from './request-groups';

const config = resolveModuleOptions({ onRedisError: 'memory' });
const wide = normalizePolicy({ limit: 5, window: '1m' }, 'wide', 'test');
const narrow = normalizePolicy({ limit: 1, window: '1m' }, 'narrow', 'test');

describe('DecisionEngine on the memory store', () => {
  let store: MemoryStore;
  let fallbackStore: FallbackStore;
  let engine: DecisionEngine;
  beforeEach(() => {
    const registry = new PolicyRegistry();
    registry.register(wide, 'test', true);
    registry.register(narrow, 'test', true);
    store = new MemoryStore();
    fallbackStore = new FallbackStore(
      new MemoryStore(),
      { standing: { instances: 1, rank: 0 } },
      undefined,
    );
    engine = new DecisionEngine(config, store, registry, fallbackStore, []);
  });
  afterEach(() => {
    store.close();
    engine.onModuleDestroy();
  });

  const remaining = (policy: typeof wide, identity: string) => {
    const entry = storeEntry(config.keys, policy, config.keys.identityTag(identity), 0);
    return store.decideSync('peek', [entry], Date.now() * 1000).decisions[0].remaining;
  };

  it('decides several identities all-or-nothing at once: nobody else ever sees a charge that a refund takes back', async () => {
    await engine.decide([{ policy: narrow, identity: 'user:y', cost: 1 }]);
    const both = [
      { policy: wide, identity: 'user:x', cost: 1 },
      { policy: narrow, identity: 'user:y', cost: 1 },
    ];
    const pending = engine.decide(both);
    // Another request of this process could run now: user:x must not look charged.
    expect(remaining(wide, 'user:x')).toBe(5);
    expect((await pending).allowed).toBe(false);
    expect(remaining(wide, 'user:x')).toBe(5);
  });

  it('answers a policy given twice for one identity with a rejection, never a synchronous throw', async () => {
    // Callers chain on the promise (the service, the guard): a throw would skip their handling.
    const twice = [
      { policy: wide, identity: 'user:w', cost: 1 },
      { policy: wide, identity: 'user:w', cost: 1 },
    ];
    let verdict: unknown;
    expect(() => (verdict = engine.decide(twice))).not.toThrow();
    await expect(verdict).rejects.toThrow(DuplicatePolicyError);
  });

  it('keeps no notes for an outage that cannot happen (the fallback stays empty)', async () => {
    await engine.decide([{ policy: wide, identity: 'user:z', cost: 1 }]);
    const key = storeEntry(config.keys, wide, config.keys.identityTag('user:z'), 1).key;
    expect(fallbackStore.holds(key)).toBe(false);
  });
});

describe('DecisionEngine.remembered (what the shedder asks before routing)', () => {
  let store: MemoryStore;
  let engine: DecisionEngine;
  let storeCalls: number;
  const observed: boolean[] = [];
  const rejectedX = [{ policy: narrow, identity: 'user:x', cost: 1 }];

  beforeEach(() => {
    const registry = new PolicyRegistry();
    registry.register(narrow, 'test', true);
    store = new MemoryStore();
    storeCalls = 0;
    observed.length = 0;
    // Decides as the memory store does, reported as Redis: only Redis's rejections are remembered.
    const asRedis = new Proxy(store, {
      get: (target, property) => {
        if (property === 'source') return 'redis';
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          storeCalls++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const fallbackStore = new FallbackStore(
      new MemoryStore(),
      { standing: { instances: 1, rank: 0 } },
      undefined,
    );
    engine = new DecisionEngine(config, asRedis, registry, fallbackStore, [
      { observe: (verdict) => observed.push(verdict.allowed) },
    ]);
  });
  afterEach(() => {
    store.close();
    engine.onModuleDestroy();
  });

  it('answers nothing while no rejection is remembered, and asks no store', () => {
    expect(engine.remembersRejections).toBe(false);
    expect(engine.remembered(rejectedX)).toBeUndefined();
    expect(storeCalls).toBe(0);
    expect(observed).toEqual([]);
  });

  it('answers a remembered rejection without the store, counted as decide() counts it', async () => {
    await engine.decide(rejectedX);
    await engine.decide(rejectedX);
    expect(observed).toEqual([true, false]);
    const calls = storeCalls;

    const verdict = engine.remembered(rejectedX);

    expect(engine.remembersRejections).toBe(true);
    expect(verdict).toMatchObject({ allowed: false, source: 'redis' });
    expect(verdict?.decisions[0]).toMatchObject({ policy: 'narrow', allowed: false });
    expect(storeCalls).toBe(calls);
    expect(observed).toEqual([true, false, false]);
    // Another identity, or the same one at another cost, is not that rejection.
    expect(engine.remembered([{ ...rejectedX[0], identity: 'user:y' }])).toBeUndefined();
    expect(engine.remembered([{ ...rejectedX[0], cost: 2 }])).toBeUndefined();
    expect(observed).toHaveLength(3);
  });

  it('forgets with the cache: after a reset or a policy change nothing is answered', async () => {
    await engine.decide(rejectedX);
    await engine.decide(rejectedX);
    engine.forgetRejections();
    expect(engine.remembersRejections).toBe(false);
    expect(engine.remembered(rejectedX)).toBeUndefined();
  });
});
