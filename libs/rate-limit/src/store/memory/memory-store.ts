import { capacityOf } from '../../policy/rate-limit-algorithm';
import type {
  RateLimitStore,
  ReasonCode,
  StoreEntry,
  StoreOp,
  StoreOutcome,
  ScanPage,
  StoreReply,
} from '../rate-limit-store.interface';
import { REASON } from '../reason-code';
import { InvalidCursorError } from '../../errors/invalid-cursor.error';
import { MEMORY_ALGORITHMS } from './algorithms';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
} from './algorithms/memory-algorithm.interface';
import { MemoryKeyspace, type MemoryKeyspaceOptions } from './memory-keyspace';

/** Each sweep is bounded (SWEEP_VISITS_PER_TICK), so sweeps are frequent: 100,000 keys in 10 s. */
const SWEEP_INTERVAL_MS = 1_000;
/** Slots a listing page reads per key asked for: other policies' keys share the slots. */
const SLOTS_PER_LISTED_KEY = 10;

interface Checked extends CheckResult {
  reason: ReasonCode;
}

/** Wall clock in microseconds, like Redis TIME. */
export function clockUs(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/**
 * The same algorithms and replies as the Redis store, for one process: single-instance apps,
 * tests, and the insurance store while Redis is unreachable. Mirrors lua/decide.lua. Bounded
 * like a Redis with `allkeys-lru`: past `maxKeys` keys the least recently used one is dropped.
 * @publicApi
 */
export class MemoryStore implements RateLimitStore {
  readonly source = 'memory' as const;
  readonly keyspace: MemoryKeyspace;
  private readonly sweeper = setInterval(() => this.keyspace.sweep(), SWEEP_INTERVAL_MS).unref();

  /** `maxKeys`: see the `memoryMaxKeys` module option; `clockMs`: for expiry (tests). */
  constructor(options: MemoryKeyspaceOptions = {}) {
    this.keyspace = new MemoryKeyspace(options);
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
    return keys.map((key) => this.keyspace.get(key) !== undefined);
  }

  async shortenExpiries(keys: readonly string[], maxMs: number): Promise<void> {
    for (const key of keys) {
      if (this.keyspace.pttl(key) > maxMs) this.keyspace.expire(key, maxMs);
    }
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

  decideSync(
    op: StoreOp,
    entries: readonly StoreEntry[],
    now: number,
    chargedAtUs: number = now,
  ): StoreReply {
    const params = entries.map((entry) => toParams(entry, now, chargedAtUs));
    if (op === 'refund') {
      params.forEach((p, i) => MEMORY_ALGORITHMS[entries[i].policy.algo].refund(p, this.keyspace));
      return { admitted: true, outcomes: [], decidedAtUs: now };
    }
    const states = params.map((p, i) => this.check(entries[i], p));
    const admitted = states.every((st, i) => st.allowed || entries[i].policy.mode === 'shadow');
    if (op === 'consume') {
      states.forEach((st, i) => this.commitOrPenalize(entries[i], params[i], st, admitted));
    }
    return { admitted, outcomes: states.map(toOutcome), decidedAtUs: now };
  }

  private check(entry: StoreEntry, p: AlgorithmParams): Checked {
    const untilUs = this.blockedUntil(entry, p.now);
    if (untilUs !== undefined) {
      const left = untilUs - p.now;
      return {
        allowed: false,
        remaining: 0,
        resetUs: left,
        retryAfterUs: left,
        reason: REASON.blocked,
      };
    }
    const st: Checked = {
      ...MEMORY_ALGORITHMS[entry.policy.algo].check(p, this.keyspace),
      reason: REASON.admitted,
    };
    st.reason = st.allowed ? REASON.admitted : REASON.limit;
    if (entry.cost > capacityOf(entry.policy))
      Object.assign(st, { allowed: false, retryAfterUs: 0, reason: REASON.costAboveCapacity });
    return st;
  }

  private blockedUntil(entry: StoreEntry, now: number): number | undefined {
    if (entry.policy.blockForMs <= 0) return undefined;
    const untilUs = this.keyspace.get<number>(entry.blockKey);
    return untilUs !== undefined && untilUs > now ? untilUs : undefined;
  }

  private commitOrPenalize(
    entry: StoreEntry,
    p: AlgorithmParams,
    st: Checked,
    admitted: boolean,
  ): void {
    const algorithm = MEMORY_ALGORITHMS[entry.policy.algo];
    if (st.allowed && admitted) {
      algorithm.commit(p, st, this.keyspace);
      return;
    }
    // A count carried over a change of `window` moves (expiry included) even uncharged.
    if (st.moved) algorithm.move?.(p, st, this.keyspace);
    if (st.reason === REASON.limit && entry.policy.blockForMs > 0) {
      const blockForUs = entry.policy.blockForMs * 1000;
      this.keyspace.set(entry.blockKey, p.now + blockForUs, entry.policy.blockForMs);
      st.retryAfterUs = Math.max(st.retryAfterUs, blockForUs);
      st.resetUs = Math.max(st.resetUs, blockForUs);
    }
  }
}

function toParams(entry: StoreEntry, now: number, charged: number): AlgorithmParams {
  const { limit, windowMs, burst } = entry.policy;
  const windowUs = windowMs * 1000;
  return { key: entry.key, now, limit, windowUs, burst, cost: entry.cost, charged };
}

/** As the reply of lua/decide.lua: a refusal always says "retry after" at least 1 ms. */
function toOutcome(st: Checked): StoreOutcome {
  let resetMs = toMs(st.resetUs);
  let retryAfterMs = toMs(st.retryAfterUs);
  if (st.reason === REASON.limit || st.reason === REASON.blocked) {
    retryAfterMs = Math.max(1, retryAfterMs);
    resetMs = Math.max(resetMs, retryAfterMs);
  }
  return { allowed: st.allowed, remaining: st.remaining, resetMs, retryAfterMs, reason: st.reason };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
