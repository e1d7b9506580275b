import { decodeClientOverride, type StoredClientOverride } from '../client-override-value';

interface Held {
  readonly override: StoredClientOverride;
  readonly expiresAt: number;
}

/**
 * Client overrides of the memory store, kept apart from its LRU keyspace: an operator's `deny`
 * must not be evicted by a flood of new identities. Operators set them one by one, so they are
 * as many as they choose; an expired one is dropped when next read.
 */
export class MemoryClientOverrides {
  private readonly held = new Map<string, Held>();

  /** Whether an override is in force at `key` (the admin listing checks its index with it). */
  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** `clockMs`: the keyspace's clock (tests move it), as Redis expires a PXAT on its own. */
  constructor(private readonly clockMs: () => number = Date.now) {}

  get size(): number {
    return this.held.size;
  }

  put(key: string, value: string | null, expiresAt = Infinity): void {
    const override = value === null ? undefined : decodeClientOverride(value);
    if (override) this.held.set(key, { override, expiresAt });
    else this.held.delete(key);
  }

  get(key: string): StoredClientOverride | undefined {
    if (this.held.size === 0) return undefined;
    const held = this.held.get(key);
    if (!held) return undefined;
    if (held.expiresAt <= this.clockMs()) {
      this.held.delete(key);
      return undefined;
    }
    return held.override;
  }
}
