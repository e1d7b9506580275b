import type { ExecutionContext } from '@nestjs/common';
import type { PolicyRequest } from '../engine/policy-request';
import { InvalidCostError } from '../errors/invalid-cost.error';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { CompiledRoute, RoutePolicy } from '../registry/compiled-route';
import type { PolicyRegistry } from '../registry/policy-registry';

/**
 * The enabled policies of a route for one call, with their identities, tiers and costs.
 * Synchronous unless a resolver (skip, identity, tier) returns a promise: the usual request
 * builds no promise and no closure.
 */
export function routeRequests(
  registry: PolicyRegistry,
  route: CompiledRoute,
  context: ExecutionContext,
): PolicyRequest[] | Promise<PolicyRequest[]> {
  return collect(registry, route, context, [], 0);
}

/** Adds the route's policies from `from` on; waits only where a resolver does. */
function collect(
  registry: PolicyRegistry,
  route: CompiledRoute,
  context: ExecutionContext,
  requests: PolicyRequest[],
  from: number,
): PolicyRequest[] | Promise<PolicyRequest[]> {
  for (let i = from; i < route.policies.length; i++) {
    const routePolicy = route.policies[i];
    const policy = registry.get(routePolicy.name)!;
    if (!policy.enabled) continue;
    // The usual case, nothing to resolve but a synchronous identity, builds no closure.
    const plain = routePolicy.skip === undefined && routePolicy.tier === undefined;
    const identity = plain ? routePolicy.identity(context) : undefined;
    if (typeof identity === 'string') {
      requests.push({ policy, identity, cost: costOf(routePolicy, context) });
      continue;
    }
    const request = requestOf(registry, routePolicy, policy, context, identity);
    if (request instanceof Promise) {
      return request.then((resolved) => {
        if (resolved) requests.push(resolved);
        return collect(registry, route, context, requests, i + 1);
      });
    }
    if (request) requests.push(request);
  }
  return requests;
}

/** One policy's request: skipped (null), else its identity and tier, resolved in turn. */
function requestOf(
  registry: PolicyRegistry,
  routePolicy: RoutePolicy,
  policy: RateLimitPolicy,
  context: ExecutionContext,
  pendingIdentity?: Promise<string>,
): PolicyRequest | null | Promise<PolicyRequest | null> {
  return then(routePolicy.skip?.(context), (skipped) => {
    if (skipped === true) return null;
    return then(pendingIdentity ?? routePolicy.identity(context), (identity) =>
      then(routePolicy.tier?.(context), (tier) => ({
        policy: (tier !== undefined && registry.getTier(routePolicy.name, tier)) || policy,
        identity,
        cost: costOf(routePolicy, context),
        ...(typeof tier === 'string' ? { tier } : {}),
      })),
    );
  });
}

/** `next(value)`, after it settles if it is a promise: synchronous resolvers stay synchronous. */
function then<T, R>(value: T | Promise<T>, next: (resolved: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

function costOf({ name, cost }: RoutePolicy, context: ExecutionContext): number {
  return typeof cost === 'number' ? cost : checkedCost(name, cost(context));
}

function checkedCost(policy: string, cost: unknown): number {
  if (typeof cost === 'number' && Number.isInteger(cost) && cost >= 1) return cost;
  throw new InvalidCostError(
    `The cost function of rate limit policy "${policy}" returned ${String(cost)}; expected an integer >= 1`,
  );
}
