import { Inject, Injectable } from '@nestjs/common';
import type { RateLimitConfig } from '../config/resolve-module-options';
import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import { DecisionEngine } from '../engine/decision-engine';
import type { DecideOptions, PolicyRequest } from '../engine/policy-request';
import { InvalidCostError } from '../errors/invalid-cost.error';
import { MAX_LIMIT } from '../policy/policy-limits';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import { PolicyRegistry } from '../registry/policy-registry';
import { IdentityResets } from '../runtime/identity-resets.service';

/**
 * Per call of `consume` and `peek`: `tier` decides with that tier's thresholds (one the policy
 * does not declare gets the policy's own, as in the guard).
 * @publicApi
 */
export interface LimitOptions extends DecideOptions {
  readonly tier?: string;
}

/**
 * Rate limiting from code, by policy name: charge, look, reset. Decisions are the guard's
 * (same engine, same store, same counting).
 * @publicApi
 */
@Injectable()
export class RateLimiterService {
  constructor(
    private readonly engine: DecisionEngine,
    private readonly registry: PolicyRegistry,
    private readonly resets: IdentityResets,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
  ) {}

  /** Charges `cost` to `identity` under a registered policy. */
  async consume(
    policyName: string,
    identity: string,
    cost = 1,
    options?: LimitOptions,
  ): Promise<RateLimitDecision> {
    if (!Number.isInteger(cost) || cost < 1 || cost > MAX_LIMIT) {
      throw new InvalidCostError(`cost must be an integer from 1 to ${MAX_LIMIT} (got ${cost})`);
    }
    const verdict = await this.engine.decide(
      [{ policy: this.policy(policyName, options?.tier), identity, cost }],
      options,
    );
    return verdict.decisions[0] ?? undecided(policyName, verdict);
  }

  /** The identity's current standing, without charging anything. */
  async peek(
    policyName: string,
    identity: string,
    options?: LimitOptions,
  ): Promise<RateLimitDecision> {
    const request = { policy: this.policy(policyName, options?.tier), identity, cost: 0 };
    const verdict = await this.engine.peek(request, options);
    return verdict.decisions[0] ?? undecided(policyName, verdict);
  }

  /** Forgets the identity's state and block under the policy on every instance. */
  async reset(policyName: string, identity: string): Promise<void> {
    await this.resets.reset(policyName, [this.config.keys.identityTag(identity)]);
  }

  /** Every policy of one request, all-or-nothing (as the guard decides a route's policies). */
  async decide(
    requests: readonly PolicyRequest[],
    options?: DecideOptions,
  ): Promise<RateLimitVerdict> {
    return this.engine.decide(requests, options);
  }

  private policy(name: string, tier?: string): RateLimitPolicy {
    const policy = this.registry.require(name);
    return (tier !== undefined && this.registry.getTier(name, tier)) || policy;
  }
}

/** No decision for the policy (Redis down with onRedisError 'open' or 'closed'). */
function undecided(policy: string, verdict: RateLimitVerdict): RateLimitDecision {
  return {
    policy,
    allowed: verdict.allowed,
    shadow: false,
    limit: 0,
    remaining: 0,
    resetMs: 0,
    retryAfterMs: 0,
    source: verdict.source,
  };
}
