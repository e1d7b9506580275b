import {
  Inject,
  Injectable,
  ServiceUnavailableException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import type { RateLimitConfig } from '../module/resolve-module-options';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import type { CompiledRoute } from '../registry/compiled-route';
import { PolicyRegistry } from '../registry/policy-registry';
import { RouteTable } from '../registry/route-table';
import { RateLimiterService, type PolicyRequest } from '../service/rate-limiter.service';
import { RateLimitExceededException } from './rate-limit-exceeded.exception';
import { mostRestrictive, rateLimitHeaders, toSeconds } from './rate-limit-headers';

interface HeaderWriter {
  setHeader?(name: string, value: string): void;
  header?(name: string, value: string): void;
}

/**
 * Applies the `@RateLimit()` policies of the handler: resolves identities, asks the service for
 * one verdict, writes the headers, and answers 429 (or 503 when Redis is down and
 * `onRedisError` is 'closed'). Use it globally (APP_GUARD) or with `@UseGuards()`.
 * @publicApi
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly routes: RouteTable,
    private readonly registry: PolicyRegistry,
    private readonly limiter: RateLimiterService,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const route = this.routes.routeFor(context.getClass(), context.getHandler() as () => unknown);
    if (!route) return true;
    const requests = await this.requests(route, context);
    if (requests.length === 0) return true;
    const verdict = await this.limiter.decide(requests);
    this.writeHeaders(context, verdict);
    if (verdict.source === 'fail-closed') {
      throw new ServiceUnavailableException('Rate limiting is unavailable');
    }
    if (!verdict.allowed) {
      const rejected = mostRestrictive(verdict.decisions)!;
      throw withoutStackTrace(
        () =>
          new RateLimitExceededException(
            rejected.policy,
            toSeconds(rejected.retryAfterMs),
            rejectionMessage(rejected),
          ),
      );
    }
    return true;
  }

  /** The enabled policies of the route, with their identities and costs. */
  protected async requests(
    route: CompiledRoute,
    context: ExecutionContext,
  ): Promise<PolicyRequest[]> {
    const requests: PolicyRequest[] = [];
    for (const { name, cost, identity } of route.policies) {
      const policy = this.registry.get(name)!;
      if (!policy.enabled) continue;
      const resolved = identity(context);
      requests.push({
        policy,
        // Built-in resolvers answer synchronously: no microtask hop for them.
        identity: typeof resolved === 'string' ? resolved : await resolved,
        cost: typeof cost === 'number' ? cost : checkedCost(name, cost(context)),
      });
    }
    return requests;
  }

  protected writeHeaders(context: ExecutionContext, verdict: RateLimitVerdict): void {
    const response = context.switchToHttp().getResponse<HeaderWriter>();
    const set = (name: string, value: string): void => {
      if (response.setHeader) response.setHeader(name, value);
      else response.header?.(name, value);
    };
    const shown = mostRestrictive(verdict.decisions);
    if (shown)
      for (const [name, value] of rateLimitHeaders(this.config.headers, shown)) set(name, value);
    if (!verdict.allowed && shown && shown.retryAfterMs > 0)
      set('Retry-After', String(toSeconds(shown.retryAfterMs)));
  }
}

/**
 * A rejection is an expected outcome, not a fault: capturing a stack trace for each 429 of a
 * flood would cost more than deciding it.
 */
function withoutStackTrace<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function rejectionMessage(decision: RateLimitDecision): string {
  if (decision.reason === 'cost-exceeds-capacity') {
    return `Request cost exceeds the capacity (${decision.limit}) of this limit; it can never be admitted`;
  }
  return decision.reason === 'blocked'
    ? 'Too Many Requests: temporarily blocked'
    : 'Too Many Requests';
}

function checkedCost(policy: string, cost: unknown): number {
  if (typeof cost === 'number' && Number.isInteger(cost) && cost >= 1) return cost;
  throw new Error(
    `The cost function of rate limit policy "${policy}" returned ${String(cost)}; expected an integer >= 1`,
  );
}
