import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import type { MetadataScanner } from '@nestjs/core';
import { handlerKind, type HandlerKind } from '../context/handler-kind';
import { getDeclaredRateLimits, getInheritedRateLimits } from '../decorators/rate-limit.decorator';

type Handler = (...args: unknown[]) => unknown;
type HandlerClass = abstract new (...args: never[]) => unknown;

/** A method Nest calls through guards (a route, resolver, gateway or microservice handler). */
export interface FoundHandler {
  readonly cls: HandlerClass;
  readonly handler: Handler;
  readonly kind: HandlerKind;
}

/** Where a `@RateLimit()` was written that no guard will ever see. */
export interface UnlimitableDeclaration {
  readonly where: string;
  readonly problem: string;
}

export interface HandlerScan {
  readonly handlers: FoundHandler[];
  readonly unlimitable: UnlimitableDeclaration[];
}

const NOT_A_HANDLER =
  'is not an HTTP route, GraphQL resolver, WebSocket message handler or microservice ' +
  'handler: no guard runs on it, so it would never be limited';

/**
 * Every handler of the application's controllers and providers (resolvers and gateways are
 * providers), and every `@RateLimit()` declared where no handler is: on a helper method, on a
 * plain service or on a class without handlers.
 */
export function scanHandlers(
  wrappers: readonly InstanceWrapper[],
  scanner: MetadataScanner,
): HandlerScan {
  const handlers: FoundHandler[] = [];
  const unlimitable: UnlimitableDeclaration[] = [];
  const seen = new Set<HandlerClass>();
  for (const wrapper of wrappers) {
    const instance: unknown = wrapper.instance;
    if (!instance || typeof instance !== 'object') continue;
    const prototype = Object.getPrototypeOf(instance) as Record<string, Handler> | null;
    // The instance's class, not `wrapper.metatype`: that is the factory of a factory provider
    // and null for a value provider, while GraphQL serves such providers' resolvers too and the
    // guard's context names the instance's constructor as their class.
    const cls = prototype?.constructor as HandlerClass | undefined;
    if (!prototype || typeof cls !== 'function' || seen.has(cls)) continue;
    seen.add(cls);
    const classLimited = getInheritedRateLimits(cls).some((level) => level.length > 0);
    let found = 0;
    for (const method of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[method];
      const kind = handlerKind(handler);
      if (kind) {
        handlers.push({ cls, handler, kind });
        found++;
      } else if (getDeclaredRateLimits(handler).length > 0) {
        unlimitable.push({ where: `${cls.name}.${method}`, problem: NOT_A_HANDLER });
      }
    }
    if (classLimited && found === 0) {
      unlimitable.push({
        where: cls.name,
        problem: `(a class with @RateLimit()) ${NOT_A_HANDLER}`,
      });
    }
  }
  return { handlers, unlimitable };
}
