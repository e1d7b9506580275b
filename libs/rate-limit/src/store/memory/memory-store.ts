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
import { MEMORY_ALGORITHMS } from './algorithms';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
} from './algorithms/memory-algorithm.interface';
import { MemoryKeyspace } from './memory-keyspace';

const SWEEP_INTERVAL_MS = 10_000;

interface Checked extends CheckResult {
  reason: ReasonCode;
}

/** Wall clock in microseconds, like Redis TIME. */
export function clockUs(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/**
 * The same algorithms and replies as the Redis store, for one process: single-instance apps,
 * tests, and the insurance store while Redis is unreachable. Mirrors lua/decide.lua.
 * @publicApi
 */
export class MemoryStore implements RateLimitStore {
  readonly kind = 'memory' as const;
  readonly keyspace = new MemoryKeyspace();
  private readonly sweeper = setInterval(() => this.keyspace.sweep(), SWEEP_INTERVAL_MS).unref();

  async decide(
    op: StoreOp,
    entries: readonly StoreEntry[],
    nowUs?: number,
    chargedAtUs?: number,
  ): Promise<StoreReply> {
    return this.decideSync(op, entries, nowUs ?? clockUs(), chargedAtUs);
  }

  async inspect(groups: readonly (readonly StoreEntry[])[]): Promise<StoreReply[]> {
    const now = clockUs();
    return groups.map((entries) => this.decideSync('peek', entries, now));
  }

  async existing(keys: readonly string[]): Promise<boolean[]> {
    return keys.map((key) => this.keyspace.get(key) !== undefined);
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.keyspace.del(key);
  }

  async scan(match: string, cursor: string | null, count: number): Promise<ScanPage> {
    const pattern = new RegExp(`^${match.split('*').map(escapeRegExp).join('.*')}$`);
    const start = cursor === null ? 0 : Number(cursor);
    const { keys, next } = this.keyspace.page(start, count * 10);
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
      return { allowed: false, remaining: 0, resetUs: left, retryAfterUs: left, reason: 2 };
    }
    const st: Checked = {
      ...MEMORY_ALGORITHMS[entry.policy.algo].check(p, this.keyspace),
      reason: 0,
    };
    st.reason = st.allowed ? 0 : 1;
    if (entry.cost > capacityOf(entry.policy))
      Object.assign(st, { allowed: false, retryAfterUs: 0, reason: 3 });
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
    if (st.allowed && admitted) {
      MEMORY_ALGORITHMS[entry.policy.algo].commit(p, st, this.keyspace);
    } else if (st.reason === 1 && entry.policy.blockForMs > 0) {
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
  if (st.reason === 1 || st.reason === 2) {
    retryAfterMs = Math.max(1, retryAfterMs);
    resetMs = Math.max(resetMs, retryAfterMs);
  }
  return { allowed: st.allowed, remaining: st.remaining, resetMs, retryAfterMs, reason: st.reason };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
