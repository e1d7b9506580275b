import type { RateLimitDecision } from '../../decision/rate-limit-decision.interface';
import { MAX_SLIDING_WINDOW_LIMIT } from '../../policy/policy-limits';
import { capacityOf } from '../../policy/rate-limit-algorithm';
import type { StoredClientOverride } from '../client-override-value';
import type { StoreEntry, StoreOp, StoreReply } from '../rate-limit-store.interface';
import { REASON, type ReasonCode } from '../reason-code';
import { storeDecision } from '../store-decision';
import { MEMORY_ALGORITHMS } from './algorithms';
import {
  toMs,
  type AlgorithmParams,
  type CheckResult,
} from './algorithms/memory-algorithm.interface';
import type { MemoryClientOverrides } from './memory-client-overrides';
import type { MemoryKeyspace } from './memory-keyspace';

interface Checked extends CheckResult {
  reason: ReasonCode;
  /** Admitted by an `allow` override though the check refused: nothing to charge. */
  free?: boolean;
  message?: string;
  /** A quota override's capacity, reported as the limit. */
  limit?: number;
  clientOverride?: StoredClientOverride['action'];
}

/** One group's decision in memory: lua/decide.lua line by line, over a MemoryKeyspace. */
export class MemoryDecider {
  constructor(
    private readonly keyspace: MemoryKeyspace,
    private readonly clientOverrides: MemoryClientOverrides,
  ) {}

  decide(
    op: StoreOp,
    entries: readonly StoreEntry[],
    now: number,
    chargedAtUs: number,
  ): StoreReply {
    const overrides = entries.map((entry) =>
      entry.overrideKey === undefined
        ? undefined
        : applicable(entry, this.clientOverrides.get(entry.overrideKey)),
    );
    const params = entries.map((entry, i) => toParams(entry, overrides[i], now, chargedAtUs));
    if (op === 'refund') {
      params.forEach((p, i) => MEMORY_ALGORITHMS[entries[i].policy.algo].refund(p, this.keyspace));
      return { admitted: true, decisions: [], decidedAtUs: now };
    }
    const states = params.map((p, i) => this.check(entries[i], p, overrides[i]));
    const admitted = states.every((st, i) => st.allowed || entries[i].policy.mode === 'shadow');
    if (op === 'consume') {
      states.forEach((st, i) => this.commitOrPenalize(entries[i], params[i], st, admitted));
    }
    const decisions = states.map((st, i) => toDecision(entries[i], st));
    // Rare (an allow over the limit): no list at all on the usual decision.
    let uncharged: number[] | undefined;
    for (let i = 0; i < states.length; i++) if (states[i].free) (uncharged ??= []).push(i);
    if (uncharged === undefined) return { admitted, decisions, decidedAtUs: now };
    return { admitted, decisions, decidedAtUs: now, uncharged };
  }

  /** As check_group in lua/decide.lua, with the client's override (read_override). */
  private check(
    entry: StoreEntry,
    p: AlgorithmParams,
    override: StoredClientOverride | undefined,
  ): Checked {
    if (override?.action === 'deny') {
      const st: Checked = { ...DENIED, clientOverride: 'deny' };
      if (override.message) st.message = override.message;
      return st;
    }
    const st = this.checkState(entry, p);
    if (override?.action === 'allow' && !st.allowed) {
      Object.assign(st, { allowed: true, retryAfterUs: 0, reason: REASON.admitted, free: true });
    }
    if (override?.action === 'quota') st.limit = capacityOf({ ...entry.policy, ...p });
    if (override) st.clientOverride = override.action;
    return st;
  }

  private checkState(entry: StoreEntry, p: AlgorithmParams): Checked {
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
    if (entry.cost > capacityOf({ algo: entry.policy.algo, limit: p.limit, burst: p.burst }))
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
      if (!st.free) algorithm.commit(p, st, this.keyspace);
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

const DENIED: Checked = {
  allowed: false,
  remaining: 0,
  resetUs: 0,
  retryAfterUs: 0,
  reason: REASON.denied,
};

/**
 * The override as decide.lua applies it: a quota above the sliding log's cap is none (the API
 * refuses one; this one was written by hand, or before the policy's algorithm changed).
 */
function applicable(
  entry: StoreEntry,
  override: StoredClientOverride | undefined,
): StoredClientOverride | undefined {
  const tooLong =
    override?.action === 'quota' &&
    entry.policy.algo === 'sliding-window' &&
    (override.limit ?? 0) > MAX_SLIDING_WINDOW_LIMIT;
  return tooLong ? undefined : override;
}

/** The policy's thresholds, or a quota override's (as read_override in lua/decide.lua). */
function toParams(
  entry: StoreEntry,
  override: StoredClientOverride | undefined,
  now: number,
  charged: number,
): AlgorithmParams {
  let { limit, windowMs, burst } = entry.policy;
  if (override?.action === 'quota') {
    burst = override.burst ?? burst;
    limit = override.limit ?? limit;
    windowMs = override.windowMs ?? windowMs;
  }
  const windowUs = windowMs * 1000;
  return { key: entry.key, now, limit, windowUs, burst, cost: entry.cost, charged };
}

/** As the reply of lua/decide.lua: a refusal always says "retry after" at least 1 ms. */
function toDecision(entry: StoreEntry, st: Checked): RateLimitDecision {
  let resetMs = toMs(st.resetUs);
  let retryAfterMs = toMs(st.retryAfterUs);
  if (st.reason === REASON.limit || st.reason === REASON.blocked) {
    retryAfterMs = Math.max(1, retryAfterMs);
    resetMs = Math.max(resetMs, retryAfterMs);
  }
  const decision = storeDecision(entry, 'memory', st.remaining, resetMs, retryAfterMs, st.reason);
  if (st.message !== undefined) decision.message = st.message;
  if (st.limit !== undefined) decision.limit = st.limit;
  if (st.clientOverride !== undefined) decision.clientOverride = st.clientOverride;
  return decision;
}
