import type {
  RateLimitStore,
  StoreEntry,
  StoreOp,
  ScanPage,
  StoreReply,
} from '../rate-limit-store.interface';
import { InvalidCursorError } from '../../errors/invalid-cursor.error';
import { MemoryClientOverrides } from './memory-client-overrides';
import { MemoryDecider } from './memory-decider';
import { MemoryKeyspace, type MemoryKeyspaceOptions } from './memory-keyspace';

/** Each sweep is bounded (SWEEP_VISITS_PER_TICK), so sweeps are frequent: 100,000 keys in 10 s. */
const SWEEP_INTERVAL_MS = 1_000;
/** Slots a listing page reads per key asked for: other policies' keys share the slots. */
const SLOTS_PER_LISTED_KEY = 10;

/** Wall clock in microseconds, like Redis TIME. */
export function clockUs(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/**
 * The same algorithms and replies as the Redis store, for one process: single-instance apps,
 * tests, and the outage fallback while Redis is unreachable. Mirrors lua/decide.lua. Bounded
 * like a Redis with `allkeys-lru`: past `maxKeys` keys the least recently used one is dropped.
 * @publicApi
 */
export class MemoryStore implements RateLimitStore {
  readonly source = 'memory' as const;
  readonly keyspace: MemoryKeyspace;
  readonly clientOverrides: MemoryClientOverrides;
  private readonly decider: MemoryDecider;
  private readonly sweeper = setInterval(() => this.keyspace.sweep(), SWEEP_INTERVAL_MS).unref();

  /** `maxKeys`: see the `memoryMaxKeys` module option; `clockMs`: for expiry (tests). */
  constructor(options: MemoryKeyspaceOptions = {}) {
    this.keyspace = new MemoryKeyspace(options);
    this.clientOverrides = new MemoryClientOverrides(options.clockMs);
    this.decider = new MemoryDecider(this.keyspace, this.clientOverrides);
  }

  async decide(
    op: StoreOp,
    entries: readonly StoreEntry[],
    nowUs?: number,
    chargedAtUs?: number,
  ): Promise<StoreReply> {
    return this.decideSync(op, entries, nowUs ?? clockUs(), chargedAtUs);
  }

  async decideAll(
    op: StoreOp,
    groups: readonly (readonly StoreEntry[])[],
    nowUs?: number,
  ): Promise<StoreReply> {
    return this.decideSync(op, groups.flat(), nowUs ?? clockUs());
  }

  async inspect(groups: readonly (readonly StoreEntry[])[]): Promise<StoreReply[]> {
    const now = clockUs();
    return groups.map((entries) => this.decideSync('peek', entries, now));
  }

  async existing(keys: readonly string[]): Promise<boolean[]> {
    return keys.map((key) => this.keyspace.get(key) !== undefined || this.clientOverrides.has(key));
  }

  async shortenExpiries(keys: readonly string[], maxMs: number): Promise<void> {
    for (const key of keys) {
      if (this.keyspace.pttl(key) > maxMs) this.keyspace.expire(key, maxMs);
    }
  }

  async putClientOverride(key: string, value: string | null, expiresAt?: number): Promise<void> {
    this.clientOverrides.put(key, value, expiresAt);
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.keyspace.del(key);
  }

  async scan(match: string, cursor: string | null, count: number): Promise<ScanPage> {
    const pattern = new RegExp(`^${match.split('*').map(escapeRegExp).join('.*')}$`);
    // A slot offset, as given out below.
    if (cursor !== null && !/^\d{1,15}$/.test(cursor)) throw new InvalidCursorError();
    const start = cursor === null ? 0 : Number(cursor);
    const { keys, next } = this.keyspace.page(start, count * SLOTS_PER_LISTED_KEY);
    return {
      keys: keys.filter((key) => pattern.test(key)),
      cursor: next === null ? null : String(next),
    };
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  onModuleDestroy(): void {
    this.close();
  }

  /** Decides at `now` (µs) at once; the tests' synchronous entry. */
  decideSync(
    op: StoreOp,
    entries: readonly StoreEntry[],
    now: number,
    chargedAtUs: number = now,
  ): StoreReply {
    return this.decider.decide(op, entries, now, chargedAtUs);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
