import type { INestApplicationContext } from '@nestjs/common';
import { MODULE_PATH, PATH_METADATA } from '@nestjs/common/constants';
import { ApplicationConfig, ModulesContainer } from '@nestjs/core';
import { getDeclaredRateLimits, getInheritedRateLimits } from '../decorators/rate-limit.decorator';
import type { RateLimitOptions } from '../policy/rate-limit-options.interface';
import { SKIP_RATE_LIMIT_METADATA } from '../rate-limit.constants';
import { httpRoutesOf } from '../registry/route-paths';

/** A limited route handler as the OpenAPI document keys it, with the policies it shows. */
export interface LimitedOperation {
  /** The document's path (`/items/{id}`) and lower-case method. */
  readonly path: string;
  readonly method: string;
  readonly policies: readonly string[];
}

/**
 * Every route of the application's controllers that a documented `@RateLimit()` policy limits,
 * read from the controllers' metadata as the route table reads it: when the document is built,
 * nothing having been written into Swagger's metadata beforehand.
 */
export function limitedOperations(app: INestApplicationContext): LimitedOperation[] {
  const modules = app.get(ModulesContainer, { strict: false });
  const config = app.get(ApplicationConfig, { strict: false });
  const prefixes = { globalPrefix: config.getGlobalPrefix(), versioning: config.getVersioning() };
  const operations: LimitedOperation[] = [];
  for (const module of modules.values()) {
    const modulePath = modulePathOf(module.metatype, modules.applicationId);
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as object | null;
      if (!controller) continue;
      for (const handler of routeHandlers(controller)) {
        const policies = documentedPolicies(controller, handler);
        if (policies.length === 0) continue;
        for (const { method, path } of httpRoutesOf(controller, handler, prefixes, modulePath)) {
          operations.push({ path: openApiPath(path), method: method.toLowerCase(), policies });
        }
      }
    }
  }
  return operations;
}

/** The path RouterModule mounted a module on (for this application first, as Nest reads it). */
function modulePathOf(module: object, applicationId: string | undefined): string {
  const path: unknown =
    Reflect.getMetadata(MODULE_PATH + (applicationId ?? ''), module) ??
    Reflect.getMetadata(MODULE_PATH, module);
  return typeof path === 'string' ? path : '';
}

/** `:id` as OpenAPI writes it, `{id}` (an optional `:id?` as well). */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}');
}

/** The route handlers of a controller, inherited ones included (the most derived wins). */
function routeHandlers(controller: object): object[] {
  const handlers: object[] = [];
  const seen = new Set<string>();
  let prototype = (controller as { prototype?: object }).prototype;
  for (
    ;
    prototype && prototype !== Object.prototype;
    prototype = Object.getPrototypeOf(prototype)
  ) {
    for (const name of Object.getOwnPropertyNames(prototype)) {
      if (name === 'constructor' || seen.has(name)) continue;
      seen.add(name);
      // The descriptor, not the property: reading a getter would run it.
      const value: unknown = Object.getOwnPropertyDescriptor(prototype, name)?.value;
      if (typeof value === 'function' && Reflect.getMetadata(PATH_METADATA, value) !== undefined) {
        handlers.push(value);
      }
    }
  }
  return handlers;
}

/** The policies of a route handler the document shows, merged as the route table does. */
function documentedPolicies(controller: object, handler: object): string[] {
  const skipped = (on: object): boolean =>
    Reflect.getMetadata(SKIP_RATE_LIMIT_METADATA, on) === true;
  if (skipped(handler) || skipped(controller)) return [];
  const where = `${(controller as { name?: string }).name}.${(handler as { name?: string }).name}`;
  const byName = new Map<string, RateLimitOptions>();
  for (const level of [...getInheritedRateLimits(controller), getDeclaredRateLimits(handler)]) {
    for (const options of level) byName.set(options.name ?? where, options);
  }
  return [...byName].filter(([, options]) => options.openApi !== false).map(([name]) => name);
}
