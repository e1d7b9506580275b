import { MemoryKeyspace, SWEEP_VISITS_PER_TICK } from './memory-keyspace';

/** A keyspace on a clock the test moves. */
function keyspace(maxKeys: number) {
  const clock = { nowMs: 1_000_000 };
  return { ks: new MemoryKeyspace({ maxKeys, clockMs: () => clock.nowMs }), clock };
}

const keyOf = (i: number) => `rl:{id-${i}}:p:fw`;

/** Every key of a listing, a page of `visits` slots at a time, `between` run after each page. */
function listAll(ks: MemoryKeyspace, visits: number, between: () => void = () => {}): string[] {
  const listed: string[] = [];
  let cursor: number | null = 0;
  while (cursor !== null) {
    const page: { keys: string[]; next: number | null } = ks.page(cursor, visits);
    listed.push(...page.keys);
    cursor = page.next;
    between();
  }
  return listed;
}

describe('MemoryKeyspace', () => {
  it('holds at most maxKeys keys, dropping the least recently used first', () => {
    const { ks } = keyspace(3);
    for (const key of ['a', 'b', 'c']) ks.set(key, key, 60_000);
    expect(ks.get('a')).toBe('a'); // now the most recently used: b is the oldest
    ks.set('d', 'd', 60_000);
    expect(ks.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((key) => ks.get(key))).toEqual(['a', undefined, 'c', 'd']);
  });

  it('given N + k distinct keys keeps the N most recently used', () => {
    const { ks } = keyspace(1_000);
    for (let i = 0; i < 1_500; i++) ks.set(keyOf(i), i, 86_400_000);
    expect(ks.size).toBe(1_000);
    expect(ks.get(keyOf(499))).toBeUndefined();
    expect(ks.get(keyOf(500))).toBe(500);
    expect(ks.get(keyOf(1_499))).toBe(1_499);
  });

  it('keeps expiry like Redis: gone at its time, PTTL -2 when missing, at least 1 ms', () => {
    const { ks, clock } = keyspace(10);
    ks.set('k', 1, 500);
    ks.set('z', 1, 0);
    expect(ks.pttl('k')).toBe(500);
    expect(ks.pttl('z')).toBe(1);
    clock.nowMs += 499;
    expect(ks.get('k')).toBe(1);
    clock.nowMs += 1;
    expect([ks.get('k'), ks.pttl('k'), ks.size]).toEqual([undefined, -2, 1]);
    ks.expire('k', 1_000); // PEXPIRE of a missing key does nothing
    expect(ks.get('k')).toBeUndefined();
  });

  it('sweeps in bounded steps: each tick looks at SWEEP_VISITS_PER_TICK slots at most', () => {
    const { ks, clock } = keyspace(100_000);
    const keys = 4.5 * SWEEP_VISITS_PER_TICK;
    for (let i = 0; i < keys; i++) ks.set(keyOf(i), i, i % 2 === 0 ? 1_000 : 60_000);
    clock.nowMs += 1_000;
    const visits: number[] = [];
    for (let tick = 0; tick < 5; tick++) {
      const before = ks.slotsVisited;
      visits.push(ks.sweep());
      expect(ks.slotsVisited - before).toBe(visits[tick]);
    }
    expect(Math.max(...visits)).toBe(SWEEP_VISITS_PER_TICK);
    // Five ticks went once round every slot: only the keys that had not expired are left.
    expect(ks.size).toBe(keys / 2);
    expect(ks.get(keyOf(1))).toBe(1);
  });

  it('lists a page of 10 from 100,000 keys by looking at 10 slots, wherever it starts', () => {
    const { ks } = keyspace(200_000);
    for (let i = 0; i < 100_000; i++) ks.set(keyOf(i), i, 60_000);
    for (const start of [99_990, 50_000, 0]) {
      const before = ks.slotsVisited;
      const page = ks.page(start, 10);
      expect(ks.slotsVisited - before).toBe(10);
      expect(page.keys).toHaveLength(10);
      expect(page.next).toBe(start === 99_990 ? null : start + 10);
    }
  });

  it('lists every key present throughout exactly once, while others are deleted and added', () => {
    const { ks } = keyspace(10_000);
    for (let i = 0; i < 1_000; i++) ks.set(keyOf(i), i, 60_000);
    const deleted = new Set<string>();
    let added = 1_000;
    let step = 0;
    const listed = listAll(ks, 37, () => {
      // Behind the cursor and ahead of it, and new keys that may take freed slots.
      for (const i of [step * 7, 999 - step * 11, (step * 13) % 1_000]) {
        ks.del(keyOf(i));
        deleted.add(keyOf(i));
      }
      ks.set(keyOf(added++), 0, 60_000);
      step++;
    });
    const survivors = Array.from({ length: 1_000 }, (_, i) => keyOf(i)).filter(
      (key) => !deleted.has(key),
    );
    expect(deleted.size).toBeGreaterThan(50);
    expect(new Set(listed).size).toBe(listed.length);
    const listedOnce = new Set(listed);
    expect(survivors.filter((key) => !listedOnce.has(key))).toEqual([]);
  });

  it('does not list expired keys', () => {
    const { ks, clock } = keyspace(10);
    ks.set('long', 1, 60_000);
    ks.set('short', 1, 10);
    clock.nowMs += 10;
    expect(listAll(ks, 10)).toEqual(['long']);
  });

  it('does not count a listing as use: the least recently used key still goes first', () => {
    const { ks } = keyspace(2);
    ks.set('a', 1, 60_000);
    ks.set('b', 1, 60_000);
    ks.get('a'); // b is now the least recently used
    expect(listAll(ks, 10)).toEqual(['a', 'b']);
    ks.set('c', 1, 60_000);
    expect([ks.get('a'), ks.get('b'), ks.get('c')]).toEqual([1, undefined, 1]);
  });
});
