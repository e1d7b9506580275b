import { VersioningType, type VersioningOptions } from '@nestjs/common';
import { HOST_METADATA } from '@nestjs/common/constants';

/** @nestjs/platform-fastify's `@RouteConstraints()` key, spelled out: that package is optional. */
export const FASTIFY_ROUTE_CONSTRAINTS_METADATA = '__fastify_route_constraints__';

export type ControllerClass = abstract new (...args: never[]) => unknown;

/**
 * Why one method and path may reach different handlers in this application (so a rejection
 * learned on one cannot stand for the other), or undefined when the path alone picks the
 * handler. Host-bound controllers, versions read from headers, and Fastify route constraints
 * choose by what the client sends besides the path.
 */
export function pathRoutingProblem(
  controllers: readonly ControllerClass[],
  methodNames: (prototype: object) => string[],
  versioning: VersioningOptions | undefined,
): string | undefined {
  if (versioning && versioning.type !== VersioningType.URI) {
    return `versioning by ${VersioningType[versioning.type].toLowerCase().replace('_', ' ')}`;
  }
  for (const cls of controllers) {
    if (Reflect.getMetadata(HOST_METADATA, cls) !== undefined) {
      return `${cls.name} is bound to a host`;
    }
    const prototype = cls.prototype as Record<string, unknown>;
    for (const name of methodNames(prototype)) {
      const handler = prototype[name];
      if (
        typeof handler === 'function' &&
        Reflect.getMetadata(FASTIFY_ROUTE_CONSTRAINTS_METADATA, handler) !== undefined
      ) {
        return `${cls.name}.${name} has route constraints`;
      }
    }
  }
  return undefined;
}
