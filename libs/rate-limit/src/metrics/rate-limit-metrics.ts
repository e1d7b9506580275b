import { Counter, Gauge, Registry } from 'prom-client';
import { BulkHistogram } from './bulk-histogram';
import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import { DECISION_OUTCOMES, outcomeOf, type DecisionOutcome } from '../decision/decision-outcome';
import type { StoreFailure } from '../errors/rate-limit-store.error';

type Outcome = 'allowed' | 'rejected' | 'shadow_rejected';

const OUTCOME_LABEL: Readonly<Record<DecisionOutcome, Outcome>> = {
  allowed: 'allowed',
  rejected: 'rejected',
  shadowRejected: 'shadow_rejected',
};

/** Below this share of its capacity left, a decision counts as near the limit. */
const NEAR_LIMIT_SHARE = 0.2;

/**
 * Prometheus metrics of the limiter, in a registry of its own (several apps in one process, as in
 * tests, must not collide in prom-client's global one). Labels are policies, outcomes and
 * failure kinds only: bounded by configuration, never by clients.
 * @publicApi
 */
export class RateLimitMetrics {
  readonly registry = new Registry();

  private readonly decisions = new Counter({
    name: 'rate_limit_decisions_total',
    help: 'Policy decisions by outcome (allowed, rejected, shadow_rejected)',
    labelNames: ['policy', 'outcome'] as const,
    registers: [this.registry],
    collect: () => this.flushCounts(),
  });
  private readonly fallbacks = new Counter({
    name: 'rate_limit_fallback_decisions_total',
    help: 'Requests decided without Redis, by onRedisError mode (memory, open, closed)',
    labelNames: ['mode'] as const,
    registers: [this.registry],
  });
  private readonly nearLimit = new Counter({
    name: 'rate_limit_near_limit_total',
    help: `Admitted decisions that left less than ${NEAR_LIMIT_SHARE * 100} % of the capacity`,
    labelNames: ['policy'] as const,
    registers: [this.registry],
    collect: () => this.flushCounts(),
  });
  private readonly scriptSeconds = new BulkHistogram(
    'rate_limit_redis_command_duration_seconds',
    'Latency of Redis rate limit commands (the decide script, refunds, deletes)',
    [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    this.registry,
  );
  private readonly redisErrors = new Counter({
    name: 'rate_limit_redis_errors_total',
    help: 'Redis commands that failed, by kind (unavailable, timeout, error)',
    labelNames: ['failure'] as const,
    registers: [this.registry],
  });
  private readonly circuit = new Gauge({
    name: 'rate_limit_redis_circuit_open',
    help: '1 while the circuit breaker keeps decisions away from Redis',
    registers: [this.registry],
  });
  private readonly circuitOpenings = new Counter({
    name: 'rate_limit_redis_circuit_opened_total',
    help: 'Times the circuit breaker opened (consecutive Redis failures or timeouts)',
    registers: [this.registry],
  });
  private readonly liveInstances = new Gauge({
    name: 'rate_limit_live_instances',
    help: 'Instances alive in the last heartbeat this instance saw (the memory fallback shares each limit among them)',
    registers: [this.registry],
  });
  /**
   * Decisions per policy counted since the last scrape, in plain numbers: prom-client hashes a
   * label set on every increment, a measurable share of a lone decision's CPU. A scrape adds
   * them to the counters (flushCounts).
   */
  private readonly counts = new Map<string, PolicyCounts>();

  /** Counts one consumed request's decisions. */
  observe(verdict: RateLimitVerdict): void {
    if (verdict.source === 'fail-open' || verdict.source === 'fail-closed') {
      this.fallbacks.labels(verdict.source === 'fail-open' ? 'open' : 'closed').inc();
      return;
    }
    if (verdict.source === 'memory' && verdict.storeError) this.fallbacks.labels('memory').inc();
    for (const d of verdict.decisions) {
      let counts = this.counts.get(d.policy);
      if (!counts) this.counts.set(d.policy, (counts = new PolicyCounts()));
      const outcome = outcomeOf(d, verdict);
      if (outcome) counts[outcome]++;
      if (d.allowed && isNearLimit(d)) counts.nearLimit++;
    }
  }

  observeCommand(seconds: number, failure?: StoreFailure): void {
    if (failure) this.redisErrors.labels(failure).inc();
    else this.scriptSeconds.observe(seconds);
  }

  setCircuitOpen(open: boolean): void {
    this.circuit.set(open ? 1 : 0);
    if (open) this.circuitOpenings.inc();
  }

  setLiveInstances(count: number): void {
    this.liveInstances.set(count);
  }

  /** Adds what was counted since the last scrape to the counters (both read them). */
  private flushCounts(): void {
    for (const [policy, counts] of this.counts) {
      for (const outcome of DECISION_OUTCOMES) {
        if (counts[outcome] === 0) continue;
        this.decisions.labels(policy, OUTCOME_LABEL[outcome]).inc(counts[outcome]);
        counts[outcome] = 0;
      }
      if (counts.nearLimit > 0) this.nearLimit.labels(policy).inc(counts.nearLimit);
      counts.nearLimit = 0;
    }
  }
}

class PolicyCounts implements Record<DecisionOutcome, number> {
  allowed = 0;
  rejected = 0;
  shadowRejected = 0;
  nearLimit = 0;
}

function isNearLimit(d: RateLimitDecision): boolean {
  return d.limit > 0 && d.remaining < d.limit * NEAR_LIMIT_SHARE;
}
