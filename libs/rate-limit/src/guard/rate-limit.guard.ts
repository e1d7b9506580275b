import {
  Inject,
  Injectable,
  Logger,
  Optional,
  ServiceUnavailableException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { responseOf } from '../context/context-request';
import {
  ContextRejections,
  RATE_LIMITING_UNAVAILABLE,
  tooManyRequests,
} from './context-rejections';
import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { InvalidCostError } from '../errors/invalid-cost.error';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import type { CompiledRoute, RoutePolicy } from '../registry/compiled-route';
import { PolicyRegistry } from '../registry/policy-registry';
import { RejectedRoutes } from '../registry/rejected-routes';
import { RouteTable } from '../registry/route-table';
import { DecisionEngine } from '../engine/decision-engine';
import type { PolicyRequest } from '../engine/policy-request';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { mostRestrictive, verdictHeaders } from './rate-limit-headers';
import { rejectionException } from './rejection-exceptions';
import { setResponseHeader } from './set-response-header';

/**
 * Applies the `@RateLimit()` policies of the handler: resolves identities, asks the engine for
 * one verdict, writes the headers, and answers 429 (or 503 when Redis is down and
 * `onRedisError` is 'closed'); on GraphQL, WebSocket and microservice calls the same rejection
 * is a GraphQLError, WsException or RpcException. Use it globally (APP_GUARD) or with
 * `@UseGuards()`.
 * @publicApi
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  /**
   * Where 429s teach the shedder their routes. Not from a subclass: it may resolve identities
   * or admit requests otherwise than the shedder, which repeats this class's own steps.
   */
  private readonly rejectedRoutes: RejectedRoutes | undefined;

  constructor(
    private readonly routes: RouteTable,
    private readonly registry: PolicyRegistry,
    private readonly engine: DecisionEngine,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly rejections: ContextRejections,
    @Optional() rejectedRoutes?: RejectedRoutes,
  ) {
    this.rejectedRoutes = new.target === RateLimitGuard ? rejectedRoutes : undefined;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const route = this.routes.routeFor(
      context.getClass(),
      context.getHandler() as () => unknown,
      context.getType(),
    );
    if (!route) return true;
    const skip = this.config.options.skip?.(context);
    if (skip === true) return true;
    if (skip instanceof Promise) {
      return skip.then((skipped) => (skipped === true ? true : this.limit(route, context)));
    }
    return this.limit(route, context);
  }

  private limit(route: CompiledRoute, context: ExecutionContext): boolean | Promise<boolean> {
    const requests = this.requests(route, context);
    return Array.isArray(requests)
      ? this.decide(route, context, requests)
      : requests.then((resolved) => this.decide(route, context, resolved));
  }

  /**
   * The enabled policies of the route, with their identities and costs; synchronous unless an
   * identity resolver is.
   */
  protected requests(
    route: CompiledRoute,
    context: ExecutionContext,
  ): PolicyRequest[] | Promise<PolicyRequest[]> {
    return this.collect(route, context, [], 0);
  }

  /** On the HTTP response, including the one behind a GraphQL call; a socket or message has none. */
  protected writeHeaders(context: ExecutionContext, verdict: RateLimitVerdict): void {
    const response = responseOf(context);
    const shown = mostRestrictive(verdict.decisions);
    if (!shown) return;
    if (!response) {
      if (context.getType<string>() === 'graphql') this.warnNoGraphqlResponse();
      return;
    }
    for (const [name, value] of verdictHeaders(this.config.headers, verdict, shown)) {
      setResponseHeader(response, name, value);
    }
  }

  private warnedNoGraphqlResponse = false;

  /** Once: Apollo on Fastify puts only the request in the context unless told otherwise. */
  private warnNoGraphqlResponse(): void {
    if (this.warnedNoGraphqlResponse) return;
    this.warnedNoGraphqlResponse = true;
    new Logger('RateLimit').warn(
      'A limited GraphQL operation has no HTTP response in its context, so no rate-limit ' +
        'headers are sent. With Apollo on Fastify, give GraphQLModule ' +
        '`context: (req, reply) => ({ req, reply })`.',
    );
  }

  /** A remembered rejection is answered at once: a flood costs no promise and no round trip. */
  private decide(
    route: CompiledRoute,
    context: ExecutionContext,
    requests: PolicyRequest[],
  ): boolean | Promise<boolean> {
    if (requests.length === 0) return true;
    const verdict = this.engine.decide(requests);
    return verdict instanceof Promise
      ? verdict.then((decided) => this.conclude(route, context, decided))
      : this.conclude(route, context, verdict);
  }

  private conclude(
    route: CompiledRoute,
    context: ExecutionContext,
    verdict: RateLimitVerdict,
  ): boolean {
    this.writeHeaders(context, verdict);
    if (verdict.allowed) return true;
    const type = context.getType();
    if (verdict.source === 'fail-closed') {
      if (type === 'http') throw new ServiceUnavailableException('Rate limiting is unavailable');
      throw this.rejections.error(type, { ...RATE_LIMITING_UNAVAILABLE }, context);
    }
    const decision = mostRestrictive(verdict.decisions)!;
    if (type === 'http') {
      this.rejectedRoutes?.learn(context.switchToHttp().getRequest(), route);
      throw rejectionException(decision);
    }
    throw this.rejections.error(type, tooManyRequests(decision), context);
  }

  /**
   * Adds the route's policies from `from` on; waits only where a resolver (skip, identity,
   * tier) does.
   */
  private collect(
    route: CompiledRoute,
    context: ExecutionContext,
    requests: PolicyRequest[],
    from: number,
  ): PolicyRequest[] | Promise<PolicyRequest[]> {
    for (let i = from; i < route.policies.length; i++) {
      const routePolicy = route.policies[i];
      const policy = this.registry.get(routePolicy.name)!;
      if (!policy.enabled) continue;
      // The usual case, nothing to resolve but a synchronous identity, builds no closure.
      const plain = routePolicy.skip === undefined && routePolicy.tier === undefined;
      const identity = plain ? routePolicy.identity(context) : undefined;
      if (typeof identity === 'string') {
        requests.push({ policy, identity, cost: costOf(routePolicy, context) });
        continue;
      }
      const request = this.request(routePolicy, policy, context, identity);
      if (request instanceof Promise) {
        return request.then((resolved) => {
          if (resolved) requests.push(resolved);
          return this.collect(route, context, requests, i + 1);
        });
      }
      if (request) requests.push(request);
    }
    return requests;
  }

  /** One policy's request: skipped (null), else its identity and tier, resolved in turn. */
  private request(
    routePolicy: RoutePolicy,
    policy: RateLimitPolicy,
    context: ExecutionContext,
    pendingIdentity?: Promise<string>,
  ): PolicyRequest | null | Promise<PolicyRequest | null> {
    return then(routePolicy.skip?.(context), (skipped) => {
      if (skipped === true) return null;
      return then(pendingIdentity ?? routePolicy.identity(context), (identity) =>
        then(routePolicy.tier?.(context), (tier) => ({
          policy: (tier !== undefined && this.registry.getTier(routePolicy.name, tier)) || policy,
          identity,
          cost: costOf(routePolicy, context),
        })),
      );
    });
  }
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
