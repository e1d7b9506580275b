import { ServiceUnavailableException, type ExecutionContext } from '@nestjs/common';
import { resolveModuleOptions } from '../config/resolve-module-options';
import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { DecisionEngine } from '../engine/decision-engine';
import { normalizePolicy } from '../policy/normalize-policy';
import type { CompiledRoute } from '../registry/compiled-route';
import type { PolicyRegistry } from '../registry/policy-registry';
import type { RejectedRoutes } from '../registry/rejected-routes';
import type { RouteTable } from '../registry/route-table';
import type { ContextRejections } from './context-rejections';
import { RateLimitExceededException } from './rate-limit-exceeded.exception';
import { RateLimitGuard } from './rate-limit.guard';

const policy = normalizePolicy({ limit: 1, window: '1h' }, 'p', 'test');
const route: CompiledRoute = {
  policies: [{ name: 'p', cost: 1, identity: () => 'ip:192.0.2.1', keySource: 'ip' }],
  kind: 'http',
};
const decision = {
  policy: 'p',
  shadow: false,
  limit: 1,
  remaining: 0,
  resetMs: 60_000,
  source: 'redis' as const,
};
const REJECTED: RateLimitVerdict = {
  allowed: false,
  source: 'redis',
  decisions: [{ ...decision, allowed: false, reason: 'limit', retryAfterMs: 60_000 }],
};
const ADMITTED: RateLimitVerdict = {
  allowed: true,
  source: 'redis',
  decisions: [{ ...decision, allowed: true, retryAfterMs: 0 }],
};
const FAIL_CLOSED: RateLimitVerdict = { allowed: false, source: 'fail-closed', decisions: [] };

const request = { method: 'GET', url: '/limited' };
const httpContext = {
  getType: () => 'http',
  getClass: () => class {},
  getHandler: () => () => undefined,
  switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({ setHeader() {} }) }),
} as unknown as ExecutionContext;

/** The guard's arguments, with an engine answering `verdict` and the routes it teaches. */
function parts(verdict: RateLimitVerdict) {
  const learned: unknown[][] = [];
  const args = [
    { routeFor: () => route } as unknown as RouteTable,
    { get: () => policy } as unknown as PolicyRegistry,
    { decide: () => verdict } as unknown as DecisionEngine,
    resolveModuleOptions({}),
    {} as ContextRejections,
    { learn: (...learnt: unknown[]) => learned.push(learnt) } as unknown as RejectedRoutes,
  ] as const;
  return { args, learned };
}

describe('RateLimitGuard teaching the shedder (RejectedRoutes)', () => {
  it('teaches the route of an HTTP request it answers with 429', () => {
    const { args, learned } = parts(REJECTED);
    expect(() => new RateLimitGuard(...args).canActivate(httpContext)).toThrow(
      RateLimitExceededException,
    );
    expect(learned).toEqual([[request, route]]);
  });

  it('teaches nothing for an admission or a 503 (Redis down, onRedisError closed)', () => {
    const admitted = parts(ADMITTED);
    expect(new RateLimitGuard(...admitted.args).canActivate(httpContext)).toBe(true);
    const closed = parts(FAIL_CLOSED);
    expect(() => new RateLimitGuard(...closed.args).canActivate(httpContext)).toThrow(
      ServiceUnavailableException,
    );
    expect([...admitted.learned, ...closed.learned]).toEqual([]);
  });

  it('teaches nothing from a subclass, which may decide otherwise than the shedder repeats', () => {
    class CustomGuard extends RateLimitGuard {}
    const { args, learned } = parts(REJECTED);
    expect(() => new CustomGuard(...args).canActivate(httpContext)).toThrow(
      RateLimitExceededException,
    );
    expect(learned).toEqual([]);
  });

  it('works without RejectedRoutes (constructed by hand with the five earlier arguments)', () => {
    const { args } = parts(REJECTED);
    const guard = new RateLimitGuard(args[0], args[1], args[2], args[3], args[4]);
    expect(() => guard.canActivate(httpContext)).toThrow(RateLimitExceededException);
  });
});
