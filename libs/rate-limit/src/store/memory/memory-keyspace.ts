interface Slot {
  value: unknown;
  expiresAtMs: number;
}

/**
 * A tiny keyspace with millisecond expiry, so the in-memory algorithms can mirror the Lua ones
 * line for line (GET, SET PX, DEL). Expired keys are dropped when read and by `sweep()`.
 */
export class MemoryKeyspace {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly clockMs: () => number = Date.now) {}

  get<T>(key: string): T | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAtMs <= this.clockMs()) {
      this.slots.delete(key);
      return undefined;
    }
    return slot.value as T;
  }

  /** Like SET PX: the value lives `pxMs` from now. */
  set(key: string, value: unknown, pxMs: number): void {
    // As `px` in lua/prelude.lua: an expiry is at least 1 ms.
    this.slots.set(key, { value, expiresAtMs: this.clockMs() + Math.max(1, pxMs) });
  }

  /** Like SET KEEPTTL. */
  replace(key: string, value: unknown): void {
    const slot = this.slots.get(key);
    if (slot) slot.value = value;
  }

  /** Like PEXPIRE. */
  expire(key: string, pxMs: number): void {
    const slot = this.slots.get(key);
    if (slot) slot.expiresAtMs = this.clockMs() + Math.max(1, pxMs);
  }

  /** Milliseconds to live, -2 when missing (like PTTL). */
  pttl(key: string): number {
    return this.get(key) === undefined ? -2 : this.slots.get(key)!.expiresAtMs - this.clockMs();
  }

  del(key: string): void {
    this.slots.delete(key);
  }

  get size(): number {
    return this.slots.size;
  }

  /** Live keys from position `start` in insertion order, and where the next page starts. */
  page(start: number, size: number): { keys: string[]; next: number | null } {
    const keys: string[] = [];
    let index = 0;
    for (const [key, slot] of this.slots) {
      if (index++ < start) continue;
      if (keys.length === size) return { keys, next: index - 1 };
      if (slot.expiresAtMs > this.clockMs()) keys.push(key);
    }
    return { keys, next: null };
  }

  sweep(): void {
    const nowMs = this.clockMs();
    for (const [key, slot] of this.slots) {
      if (slot.expiresAtMs <= nowMs) this.slots.delete(key);
    }
  }
}
