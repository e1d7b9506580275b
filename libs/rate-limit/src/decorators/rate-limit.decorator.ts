import { RATE_LIMIT_METADATA } from '../rate-limit.constants';
import type { RateLimitOptions } from '../policy/rate-limit-options.interface';

/**
 * Limits a handler, or every handler of a controller. Repeatable: every policy must admit the
 * request, and none is charged when one rejects. A handler's policy replaces a controller's
 * policy of the same name; since a name is one set of thresholds shared by every route that
 * uses it, this is meant for the default names (`<Controller>.<handler>`): two declarations of
 * one explicit name with different options fail at bootstrap.
 *
 * With the OpenAPI entry point (`documentRateLimits()`), each limited route documents its 429
 * (body and Retry-After) and the rate-limit headers; `openApi: false` leaves a policy out.
 * @publicApi
 * @example
 * @RateLimit({ algo: 'sliding-window', limit: 5, window: '1m' })
 * @RateLimit({ name: 'login-daily', algo: 'fixed-window', limit: 100, window: '1d' })
 */
export function RateLimit(options: RateLimitOptions): ClassDecorator & MethodDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder: object = descriptor ? descriptor.value : target;
    const declared: RateLimitOptions[] = Reflect.getOwnMetadata(RATE_LIMIT_METADATA, holder) ?? [];
    // Decorators run bottom-up; prepending keeps the order in which they are written.
    Reflect.defineMetadata(RATE_LIMIT_METADATA, [options, ...declared], holder);
  };
}

/** The `@RateLimit()` options declared directly on a class or handler, in source order. */
export function getDeclaredRateLimits(holder: object): readonly RateLimitOptions[] {
  return Reflect.getOwnMetadata(RATE_LIMIT_METADATA, holder) ?? [];
}

/**
 * The class-level declarations of a controller and of the classes it extends, base class
 * first, one list per class (a subclass's policy replaces its base's policy of the same name).
 */
export function getInheritedRateLimits(cls: object): (readonly RateLimitOptions[])[] {
  const levels: (readonly RateLimitOptions[])[] = [];
  for (let c = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as object) {
    levels.unshift(getDeclaredRateLimits(c));
  }
  return levels;
}
