/**
 * A RateLimitGuard built by hand for unit tests: a route table, registry and engine stubbed to
 * answer what the test says, the module's resolved options, and the real ContextRejections
 * (with GraphQL's, Nest's WebSocket and microservice error classes loaded).
 */
import type { ExecutionContext } from '@nestjs/common';
import { resolveModuleOptions } from '../../src/config/resolve-module-options';
import type { RateLimitModuleOptions } from '../../src/config/rate-limit-module-options.interface';
import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../../src/decision/rate-limit-decision.interface';
import type { DecisionEngine } from '../../src/engine/decision-engine';
import type { PolicyRequest } from '../../src/engine/policy-request';
import { ContextRejections } from '../../src/guard/context-rejections';
import { RateLimitGuard } from '../../src/guard/rate-limit.guard';
import { normalizePolicy } from '../../src/policy/normalize-policy';
import type { RateLimitOptions } from '../../src/policy/rate-limit-options.interface';
import type { RateLimitPolicy } from '../../src/policy/rate-limit-policy.interface';
import type { CompiledRoute, RoutePolicy } from '../../src/registry/compiled-route';
import type { PolicyRegistry } from '../../src/registry/policy-registry';
import type { RejectedRoutes } from '../../src/registry/rejected-routes';
import type { RouteTable } from '../../src/registry/route-table';
import type { Handler } from './execution-contexts';

export type Verdicts = (requests: PolicyRequest[]) => RateLimitVerdict | Promise<RateLimitVerdict>;

export interface GuardHarness {
  guard: RateLimitGuard;
  /** The requests of each decision the engine was asked for, in order. */
  decided: PolicyRequest[][];
  /** What the guard taught the shedder: (request, route) per 429. */
  learned: unknown[][];
}

/** A policy as the registry holds it (validated, in ms). */
export function policy(name: string, options: Partial<RateLimitOptions> = {}): RateLimitPolicy {
  return normalizePolicy({ limit: 5, window: '1m', ...options, name }, name, 'test');
}

/** A route policy keyed by a fixed identity (or the resolver given), at cost 1. */
export function routePolicy(name: string, parts: Partial<RoutePolicy> = {}): RoutePolicy {
  return { name, cost: 1, identity: () => 'ip:192.0.2.1', ...parts };
}

/** A decision of `policy`: admitted with `remaining` left, unless `retryAfterMs` is given. */
export function decision(
  policyName: string,
  parts: Partial<RateLimitDecision> = {},
): RateLimitDecision {
  const rejected = parts.retryAfterMs !== undefined && parts.allowed !== true;
  return {
    policy: policyName,
    allowed: !rejected,
    shadow: false,
    limit: 5,
    remaining: rejected ? 0 : 4,
    resetMs: 30_000,
    retryAfterMs: 0,
    source: 'redis',
    ...(rejected ? { reason: 'limit' as const } : {}),
    ...parts,
  };
}

/** The verdict of these decisions: rejected when an enforced one rejects. */
export function verdict(...decisions: RateLimitDecision[]): RateLimitVerdict {
  const allowed = decisions.every((d) => d.allowed || d.shadow);
  return { allowed, decisions, source: 'redis' };
}

const rejections = new ContextRejections({} as RouteTable);
/** Loads the error classes of every context once (as the bootstrap does for limited kinds). */
export const contextErrorsLoaded = rejections.load(new Set(['graphql', 'ws', 'rpc']));

export interface GuardSetup {
  /** The compiled route of each handler; a handler not listed has none (not limited). */
  routes: ReadonlyMap<Handler, CompiledRoute>;
  /** The registry's current policies, by name. */
  policies: readonly RateLimitPolicy[];
  /** A tier's thresholds of a policy, by `<policy>/<tier>`. */
  tiers?: ReadonlyMap<string, RateLimitPolicy>;
  /** The engine's answer to each decision. */
  verdicts: Verdicts;
  options?: RateLimitModuleOptions;
}

export function guardHarness(setup: GuardSetup): GuardHarness {
  const decided: PolicyRequest[][] = [];
  const learned: unknown[][] = [];
  const byName = new Map(setup.policies.map((p) => [p.name, p]));
  const { routes, verdicts, tiers = new Map<string, RateLimitPolicy>() } = setup;
  const table = {
    routeFor: (_cls: unknown, handler: Handler) => routes.get(handler) ?? null,
  } as unknown as RouteTable;
  const registry = {
    get: (name: string) => byName.get(name),
    getTier: (name: string, tier: string) => tiers.get(`${name}/${tier}`),
  } as unknown as PolicyRegistry;
  const engine = {
    decide: (requests: PolicyRequest[]) => {
      decided.push(requests);
      return verdicts(requests);
    },
  } as unknown as DecisionEngine;
  const shedder = {
    learn: (...args: unknown[]) => learned.push(args),
  } as unknown as RejectedRoutes;
  const config = resolveModuleOptions(setup.options ?? {});
  const guard = new RateLimitGuard(table, registry, engine, config, rejections, shedder);
  return { guard, decided, learned };
}

/** canActivate's answer, awaited whether it came synchronously or not. */
export async function activate(guard: RateLimitGuard, context: ExecutionContext): Promise<boolean> {
  return guard.canActivate(context);
}
