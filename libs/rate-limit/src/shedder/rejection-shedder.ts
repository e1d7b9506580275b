import type { ExecutionContext } from '@nestjs/common';
import type { HeaderStyle } from '../config/rate-limit-module-options.interface';
import type { HeaderWriter } from '../context/context-request';
import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { DecisionEngine } from '../engine/decision-engine';
import type { PolicyRequest } from '../engine/policy-request';
import { adaptiveConclusion, adaptiveShedVerdict } from '../guard/adaptive-verdict';
import { routeRequests } from '../guard/route-requests';
import { mostRestrictive, verdictHeaders } from '../guard/rate-limit-headers';
import { rejectionBody } from '../guard/rejection-exceptions';
import { setResponseHeader } from '../guard/set-response-header';
import type { CompiledRoute } from '../registry/compiled-route';
import type { PolicyRegistry } from '../registry/policy-registry';
import type { RejectedRoutes, RoutedRequest } from '../registry/rejected-routes';
import type { AdaptiveLimits } from '../runtime/adaptive/adaptive-limits.service';
import { preRoutingContext } from './pre-routing-context';

/** Sends a body with a status as Nest's exception filter does: the HTTP adapter's `reply()`. */
export type ReplyFn = (response: unknown, body: unknown, statusCode: number) => unknown;

/**
 * Answers, before routing, a request the guard would answer from a remembered rejection, or
 * that adaptive protection's local loop drops: same route (RejectedRoutes), same policy
 * requests, same verdict (counted by the observers and the adaptive metrics as the guard's
 * is), same headers and body. Anything else is left to the guard, which takes the adaptive
 * adjustment made here rather than making another.
 */
export class RejectionShedder {
  constructor(
    private readonly routes: RejectedRoutes,
    private readonly registry: PolicyRegistry,
    private readonly engine: DecisionEngine,
    private readonly headers: HeaderStyle,
    private readonly reply: ReplyFn,
    private readonly adaptive?: AdaptiveLimits,
  ) {}

  /** True when it answered the request (429 sent); false when nothing was written. */
  answer(request: RoutedRequest, response: HeaderWriter): boolean {
    const adaptive = this.adaptive?.active ? this.adaptive : undefined;
    // While nobody is blocked nor dropped (the usual case) a request costs these checks.
    if (!this.engine.remembersRejections && !adaptive?.dropping) return false;
    const route = this.routes.routeOf(request);
    if (!route) return false;
    const requests = this.requests(route, preRoutingContext(request, response));
    if (!requests || requests.length === 0) return false;
    const verdict = adaptive
      ? this.adaptiveVerdict(adaptive, request, requests)
      : this.engine.remembered(requests);
    if (!verdict) return false;
    const shown = mostRestrictive(verdict.decisions)!;
    for (const [name, value] of verdictHeaders(this.headers, verdict, shown)) {
      setResponseHeader(response, name, value);
    }
    this.reply(response, rejectionBody(shown), 429);
    return true;
  }

  /** The guard's adaptiveVerdict() where it needs no round trip: dropped, or remembered. */
  private adaptiveVerdict(
    adaptive: AdaptiveLimits,
    request: object,
    requests: PolicyRequest[],
  ): RateLimitVerdict | undefined {
    const adjusted = adaptive.adjustBeforeRouting(request, requests);
    if (!Array.isArray(adjusted)) return adaptiveShedVerdict(adaptive, adjusted);
    if (!this.engine.remembersRejections) return undefined;
    const remembered = this.engine.remembered(adjusted);
    return remembered && adaptiveConclusion(adaptive, adjusted, remembered);
  }

  /**
   * The guard's requests for the route (routeRequests), when they can be had synchronously: a
   * learned route's identities and tiers are read from the raw request (isSheddable). Undefined
   * otherwise, which leaves the request to the guard; it resolves them again and reports what
   * fails.
   */
  private requests(route: CompiledRoute, context: ExecutionContext): PolicyRequest[] | undefined {
    try {
      const requests = routeRequests(this.registry, route, context);
      if (Array.isArray(requests)) return requests;
      requests.catch(() => undefined);
    } catch {
      // the guard's to report
    }
    return undefined;
  }
}
