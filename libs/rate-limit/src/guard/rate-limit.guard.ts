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
  type RateLimitRejection,
} from './context-rejections';
import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import type { CompiledRoute } from '../registry/compiled-route';
import { PolicyRegistry } from '../registry/policy-registry';
import { RejectedRoutes } from '../registry/rejected-routes';
import { RouteTable } from '../registry/route-table';
import { DecisionEngine } from '../engine/decision-engine';
import type { PolicyRequest } from '../engine/policy-request';
import { AdaptiveLimits } from '../runtime/adaptive/adaptive-limits.service';
import { adaptiveVerdict } from './adaptive-verdict';
import { OperationGates } from './operation-gates';
import { mostRestrictive, verdictHeaders } from './rate-limit-headers';
import { rejectionException } from './rejection-exceptions';
import { routeRequests } from './route-requests';
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
    @Optional() private readonly adaptive?: AdaptiveLimits,
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
    return routeRequests(this.registry, route, context);
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

  /** Calls of one GraphQL operation take turns (aliases would otherwise each be decided). */
  private readonly operations = new OperationGates();
  private readonly operationRejections = new WeakMap<RateLimitVerdict, RateLimitRejection>();

  /** A remembered rejection is answered at once: a flood costs no promise and no round trip. */
  private decide(
    route: CompiledRoute,
    context: ExecutionContext,
    requests: PolicyRequest[],
  ): boolean | Promise<boolean> {
    if (requests.length === 0) return true;
    const operation = graphqlOperationOf(context);
    const verdict = operation
      ? this.operations.decide(operation, requests, () => this.verdictOf(requests, context))
      : this.verdictOf(requests, context);
    return verdict instanceof Promise
      ? verdict.then((decided) => this.conclude(route, context, decided))
      : this.conclude(route, context, verdict);
  }

  /** The engine's verdict; with adaptive protection on, on effective thresholds (or shed). */
  private verdictOf(
    requests: PolicyRequest[],
    context: ExecutionContext,
  ): RateLimitVerdict | Promise<RateLimitVerdict> {
    const adaptive = this.adaptive;
    if (adaptive === undefined || !adaptive.active) return this.engine.decide(requests);
    // The request the shedder may have adjusted before routing (counted once against the share).
    const raw =
      context.getType() === 'http' ? context.switchToHttp().getRequest<object>() : undefined;
    return adaptiveVerdict(adaptive, requests, (adjusted) => this.engine.decide(adjusted), raw);
  }

  private conclude(
    route: CompiledRoute,
    context: ExecutionContext,
    verdict: RateLimitVerdict,
  ): boolean {
    // The gate repeats an operation's rejected verdict: its headers are written, its rejection built.
    const repeated = this.operationRejections.get(verdict);
    if (repeated) throw this.rejections.error('graphql', repeated, context);
    this.writeHeaders(context, verdict);
    if (verdict.allowed) return true;
    const type = context.getType<string>();
    if (type === 'http') {
      if (verdict.source === 'fail-closed') {
        throw new ServiceUnavailableException('Rate limiting is unavailable');
      }
      this.rejectedRoutes?.learn(context.switchToHttp().getRequest(), route);
      throw rejectionException(mostRestrictive(verdict.decisions)!);
    }
    const rejection =
      verdict.source === 'fail-closed'
        ? { ...RATE_LIMITING_UNAVAILABLE }
        : tooManyRequests(mostRestrictive(verdict.decisions)!);
    if (type === 'graphql') this.operationRejections.set(verdict, rejection);
    throw this.rejections.error(type, rejection, context);
  }
}

/** The context value GraphQL drivers create once per operation (per HTTP request). */
function graphqlOperationOf(context: ExecutionContext): object | undefined {
  if (context.getType<string>() !== 'graphql') return undefined;
  const operation = context.getArgByIndex<unknown>(2);
  return typeof operation === 'object' && operation !== null ? operation : undefined;
}
