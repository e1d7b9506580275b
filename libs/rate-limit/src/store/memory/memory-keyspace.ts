import { DEFAULT_MEMORY_MAX_KEYS } from '../../rate-limit.constants';

export { DEFAULT_MEMORY_MAX_KEYS };
/** Slots one sweep looks at: a tick costs about 0.1 ms however many keys there are. */
export const SWEEP_VISITS_PER_TICK = 10_000;

export interface MemoryKeyspaceOptions {
  /** At most this many keys; adding one more drops the least recently used. */
  readonly maxKeys?: number;
  readonly clockMs?: () => number;
}

const NONE = -1;

/**
 * A tiny keyspace with millisecond expiry, so the in-memory algorithms can mirror the Lua ones
 * line for line (GET, SET PX, DEL), bounded like Redis under `maxmemory-policy allkeys-lru`.
 *
 * Each key lives in a numbered slot until it is deleted, evicted or found expired: the slot
 * number is the listing cursor (a page reads only its own slots, and a key present throughout a
 * listing is listed exactly once, whatever is deleted meanwhile) and where the incremental sweep
 * resumes. Parallel arrays rather than an object per key: lru-cache has the same layout, but
 * keeps its slot numbers private, so it could not give such a cursor.
 */
export class MemoryKeyspace {
  readonly maxKeys: number;
  /** Slots page() and sweep() have looked at: their work, for tests and diagnostics. */
  slotsVisited = 0;
  private readonly clockMs: () => number;
  private readonly slotOf = new Map<string, number>();
  private readonly keys: (string | undefined)[] = [];
  private readonly values: unknown[] = [];
  private readonly expiresAtMs: number[] = [];
  /** The recency list, newest first: a doubly linked list through slot numbers. */
  private readonly newer: number[] = [];
  private readonly older: number[] = [];
  private readonly freeSlots: number[] = [];
  private newest = NONE;
  private oldest = NONE;
  private sweepFrom = 0;

  constructor(options: MemoryKeyspaceOptions = {}) {
    this.maxKeys = options.maxKeys ?? DEFAULT_MEMORY_MAX_KEYS;
    this.clockMs = options.clockMs ?? Date.now;
  }

  get<T>(key: string): T | undefined {
    const slot = this.liveSlot(key);
    return slot === undefined ? undefined : (this.values[slot] as T);
  }

  /** Like SET PX: the value lives `pxMs` from now. */
  set(key: string, value: unknown, pxMs: number): void {
    let slot = this.slotOf.get(key);
    if (slot === undefined) slot = this.add(key);
    else this.touch(slot);
    this.values[slot] = value;
    // As `px` in lua/prelude.lua: an expiry is at least 1 ms.
    this.expiresAtMs[slot] = this.clockMs() + Math.max(1, pxMs);
  }

  /** Like SET KEEPTTL. */
  replace(key: string, value: unknown): void {
    const slot = this.liveSlot(key);
    if (slot !== undefined) this.values[slot] = value;
  }

  /** Like PEXPIRE. */
  expire(key: string, pxMs: number): void {
    const slot = this.liveSlot(key);
    if (slot !== undefined) this.expiresAtMs[slot] = this.clockMs() + Math.max(1, pxMs);
  }

  /** Milliseconds to live, -2 when missing (like PTTL). */
  pttl(key: string): number {
    const slot = this.liveSlot(key);
    return slot === undefined ? -2 : this.expiresAtMs[slot] - this.clockMs();
  }

  del(key: string): void {
    const slot = this.slotOf.get(key);
    if (slot !== undefined) this.remove(slot);
  }

  /** Keys held, expired ones not yet found included (as Redis DBSIZE). */
  get size(): number {
    return this.slotOf.size;
  }

  /**
   * Live keys in slots `start` to `start + visits - 1`, and the slot the next page starts at
   * (null at the end). A page costs `visits` steps wherever it starts.
   */
  page(start: number, visits: number): { keys: string[]; next: number | null } {
    const end = Math.min(this.keys.length, start + visits);
    const nowMs = this.clockMs();
    const keys: string[] = [];
    for (let slot = start; slot < end; slot++) {
      const key = this.keys[slot];
      if (key !== undefined && this.expiresAtMs[slot] > nowMs) keys.push(key);
    }
    this.slotsVisited += Math.max(0, end - start);
    return { keys, next: end < this.keys.length ? end : null };
  }

  /**
   * Drops the expired keys among the next `maxVisits` slots, going on from where the last sweep
   * stopped (round and round): expired keys are found within a few ticks without any tick
   * walking them all. With fewer slots than `maxVisits`, one sweep looks at every slot once.
   */
  sweep(maxVisits: number = SWEEP_VISITS_PER_TICK): number {
    const slots = this.keys.length;
    const visits = Math.min(maxVisits, slots);
    const nowMs = this.clockMs();
    let slot = this.sweepFrom;
    for (let i = 0; i < visits; i++, slot++) {
      if (slot >= slots) slot = 0;
      if (this.keys[slot] !== undefined && this.expiresAtMs[slot] <= nowMs) this.remove(slot);
    }
    this.sweepFrom = slot;
    this.slotsVisited += visits;
    return visits;
  }

  /** The key's slot if it holds an unexpired value, now the most recently used. */
  private liveSlot(key: string): number | undefined {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return undefined;
    if (this.expiresAtMs[slot] <= this.clockMs()) {
      this.remove(slot);
      return undefined;
    }
    this.touch(slot);
    return slot;
  }

  private add(key: string): number {
    if (this.slotOf.size >= this.maxKeys) this.remove(this.oldest);
    const slot = this.freeSlots.pop() ?? this.keys.length;
    this.keys[slot] = key;
    this.slotOf.set(key, slot);
    this.linkNewest(slot);
    return slot;
  }

  private remove(slot: number): void {
    this.slotOf.delete(this.keys[slot]!);
    this.keys[slot] = undefined;
    this.values[slot] = undefined;
    this.unlink(slot);
    this.freeSlots.push(slot);
  }

  private touch(slot: number): void {
    if (slot === this.newest) return;
    this.unlink(slot);
    this.linkNewest(slot);
  }

  private linkNewest(slot: number): void {
    this.newer[slot] = NONE;
    this.older[slot] = this.newest;
    if (this.newest === NONE) this.oldest = slot;
    else this.newer[this.newest] = slot;
    this.newest = slot;
  }

  private unlink(slot: number): void {
    const newer = this.newer[slot];
    const older = this.older[slot];
    if (newer === NONE) this.newest = older;
    else this.older[newer] = older;
    if (older === NONE) this.oldest = newer;
    else this.newer[older] = newer;
  }
}
