import { ALGORITHM_KEY_CODE } from '../../keys/key-builder';
import { InvalidCursorError } from '../../errors/invalid-cursor.error';
import { KeyBuilder } from '../../keys/key-builder';
import { normalizePolicy } from '../../policy/normalize-policy';
import type { RateLimitPolicy } from '../../policy/rate-limit-policy.interface';
import type { StoreEntry } from '../rate-limit-store.interface';
import { DEFAULT_MEMORY_MAX_KEYS, SWEEP_VISITS_PER_TICK } from './memory-keyspace';
import { MemoryStore } from './memory-store';

const DAY_MS = 86_400_000;
const T0_MS = Math.floor(Date.UTC(2030, 0, 1) / DAY_MS) * DAY_MS + 1_000;
const keys = new KeyBuilder('rl');
const daily = normalizePolicy({ algo: 'fixed-window', limit: 1, window: DAY_MS }, 'Keyed.api', 't');
const other = normalizePolicy({ algo: 'fixed-window', limit: 1, window: DAY_MS }, 'Other.api', 't');

function entry(identity: string, policy: RateLimitPolicy = daily): StoreEntry {
  const key = keys.stateKey(keys.identityTag(identity), policy);
  return { key, overrideKey: `${key}:client`, blockKey: keys.blockKey(key), policy, cost: 1 };
}

const stores: MemoryStore[] = [];
function memoryStore(maxKeys?: number, clock = { nowMs: T0_MS }): MemoryStore {
  const store = new MemoryStore({ maxKeys, clockMs: () => clock.nowMs });
  stores.push(store);
  return store;
}
afterEach(() => {
  stores.splice(0).forEach((store) => store.close());
  jest.useRealTimers();
});

describe('MemoryStore memory bounds', () => {
  it('stays at its cap under 300,000 rotating identities on a 1-day window', () => {
    const store = memoryStore(DEFAULT_MEMORY_MAX_KEYS);
    // Keys as KeyBuilder makes them for an X-Api-Key, built directly: 300,000 encodings are slow.
    const hit = (i: number, at = 0) => {
      const key = `rl:{key-${i}}:${daily.name}:${ALGORITHM_KEY_CODE[daily.algo]}`;
      const rotating = {
        key,
        overrideKey: `${key}:client`,
        blockKey: `${key}:block`,
        policy: daily,
        cost: 1,
      };
      return store.decideSync('consume', [rotating], (T0_MS + at) * 1000).admitted;
    };
    for (let i = 0; i < 300_000; i++) hit(i);
    expect(store.keyspace.size).toBe(DEFAULT_MEMORY_MAX_KEYS);
    // The most recent clients are still limited; the first ones were dropped and start afresh.
    expect(hit(299_999, 1)).toBe(false);
    expect(hit(300_000 - DEFAULT_MEMORY_MAX_KEYS, 1)).toBe(false);
    expect(hit(0, 1)).toBe(true);
  });

  it('sweeps once a second, each tick looking at a bounded number of slots', () => {
    jest.useFakeTimers();
    const clock = { nowMs: T0_MS };
    const store = memoryStore(100_000, clock);
    const shortLived = 3 * SWEEP_VISITS_PER_TICK;
    for (let i = 0; i < shortLived; i++) store.keyspace.set(`k${i}`, 1, 1_000);
    clock.nowMs += 1_000;
    jest.advanceTimersByTime(1_000);
    expect(store.keyspace.slotsVisited).toBe(SWEEP_VISITS_PER_TICK);
    expect(store.keyspace.size).toBe(shortLived - SWEEP_VISITS_PER_TICK);
    jest.advanceTimersByTime(2_000);
    expect(store.keyspace.size).toBe(0);
  });

  it('lists a policy in O(page) pages, none repeated or missed while keys are reset', async () => {
    const store = memoryStore();
    for (let i = 0; i < 2_000; i++) {
      store.decideSync('consume', [entry(`id-${i}`)], T0_MS * 1000);
      store.decideSync('consume', [entry(`id-${i}`, other)], T0_MS * 1000);
    }
    const match = `rl:{*}:${daily.name}:${ALGORITHM_KEY_CODE[daily.algo]}`;
    const reset = new Set<string>();
    const listed: string[] = [];
    let cursor: string | null = null;
    const pageVisits: number[] = [];
    let page = 0;
    do {
      const before = store.keyspace.slotsVisited;
      const result = await store.scan(match, cursor, 20);
      pageVisits.push(store.keyspace.slotsVisited - before);
      listed.push(...result.keys);
      cursor = result.cursor;
      // Resets between pages, of clients already listed and of clients not reached yet.
      const gone = [entry(`id-${page * 3}`).key, entry(`id-${1_999 - page * 5}`).key];
      await store.delete(gone);
      gone.forEach((key) => reset.add(key));
      page++;
    } while (cursor !== null);
    const survivors = Array.from({ length: 2_000 }, (_, i) => entry(`id-${i}`).key).filter(
      (key) => !reset.has(key),
    );
    expect(reset.size).toBeGreaterThan(20);
    expect(new Set(listed).size).toBe(listed.length);
    const listedSet = new Set(listed);
    expect(survivors.filter((key) => !listedSet.has(key))).toEqual([]);
    expect(listed.every((key) => key.endsWith(`:${daily.name}:${ALGORITHM_KEY_CODE[daily.algo]}`))).toBe(true);
    // A page of 20 reads 200 slots (10 per key asked: other policies' keys share them).
    expect(Math.max(...pageVisits)).toBe(200);
  });

  it('refuses a cursor it cannot have given out with the typed InvalidCursorError', async () => {
    const store = memoryStore();
    for (const cursor of ['-1', '1e400', '1:0', '', '1234567890123456']) {
      await expect(store.scan('*', cursor, 10)).rejects.toThrow(InvalidCursorError);
    }
    await expect(store.scan('*', '0', 10)).resolves.toMatchObject({ keys: [] });
  });
});
