import { capacityOf, type RateLimitAlgorithm } from '../../src/policy/rate-limit-algorithm';
import type { RateLimitPolicy } from '../../src/policy/rate-limit-policy.interface';
import { MemoryStore } from '../../src/store/memory/memory-store';
import type { StoreOp, StoreReply } from '../../src/store/rate-limit-store.interface';
import type { RateLimitDecision } from '../../src/decision/rate-limit-decision.interface';

/**
 * 2030-01-01T00:00:01Z: one second into a window of every length the unit specs use (a day is
 * a multiple of each), so `T0 - 1_000` starts a window.
 */
export const T0 = Date.UTC(2030, 0, 1) + 1_000;

/** Whole microseconds, as Redis TIME gives them, for a time in (possibly fractional) ms. */
const us = (ms: number): number => Math.round(ms * 1000);

/** A validated policy, written out (unit specs of the stores do not go through normalizePolicy). */
export function thresholds(
  algo: RateLimitAlgorithm,
  limit: number,
  windowMs: number,
  more: Partial<RateLimitPolicy> = {},
): RateLimitPolicy {
  return {
    name: 'p',
    algo,
    limit,
    windowMs,
    burst: limit,
    blockForMs: 0,
    mode: 'enforce',
    enabled: true,
    ...more,
  };
}

/**
 * One client of an in-memory store on a test clock: `nowMs` is both the time of each decision
 * and the clock its keys expire by, so expiry is checked without sleeping.
 */
export class MemoryStoreDriver {
  nowMs = T0;
  readonly store = new MemoryStore({ clockMs: () => this.nowMs });

  constructor(readonly identity = 'ip%3A192.0.2.1') {}

  /** The key the store keeps the policy's state in for this client. */
  key(policy: RateLimitPolicy): string {
    return `rl:{${this.identity}}:${policy.name}:${policy.algo}`;
  }

  at(nowMs: number): this {
    this.nowMs = nowMs;
    return this;
  }

  run(op: StoreOp, policies: readonly RateLimitPolicy[], cost = 1): Promise<StoreReply> {
    const entries = policies.map((policy) => {
      const key = this.key(policy);
      return { key, overrideKey: `${key}:client`, blockKey: `${key}:block`, policy, cost };
    });
    return this.store.decide(op, entries, us(this.nowMs));
  }

  async hit(policy: RateLimitPolicy, cost = 1): Promise<RateLimitDecision> {
    return (await this.run('consume', [policy], cost)).decisions[0];
  }

  async hits(policy: RateLimitPolicy, count: number, cost = 1): Promise<RateLimitDecision[]> {
    const out: RateLimitDecision[] = [];
    for (let i = 0; i < count; i++) out.push(await this.hit(policy, cost));
    return out;
  }

  async peek(policy: RateLimitPolicy): Promise<RateLimitDecision> {
    return (await this.run('peek', [policy], 0)).decisions[0];
  }

  /** Gives back `cost` that a consume decided at `chargedAtMs` charged. */
  async refund(policy: RateLimitPolicy, chargedAtMs: number, cost = 1): Promise<void> {
    const key = this.key(policy);
    const entry = { key, overrideKey: `${key}:client`, blockKey: `${key}:block`, policy, cost };
    await this.store.decide('refund', [entry], us(this.nowMs), us(chargedAtMs));
  }

  /** Milliseconds the policy's state still lives; -2 when the store holds none. */
  pttl(policy: RateLimitPolicy): number {
    return this.store.keyspace.pttl(this.key(policy));
  }

  close(): void {
    this.store.close();
  }
}

/** What a refusal by the policy's own limit reports, whatever the algorithm. */
export const LIMIT = { allowed: false, reason: 'limit' } as const;

/** What every decision under `policy` reports of the policy itself (the memory store's). */
export function reported(policy: RateLimitPolicy) {
  return {
    policy: policy.name,
    shadow: policy.mode === 'shadow',
    limit: capacityOf(policy),
    source: 'memory' as const,
  };
}
