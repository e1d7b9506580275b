import {
  RequestMethod,
  VERSION_NEUTRAL,
  VersioningType,
  type VersioningOptions,
} from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, VERSION_METADATA } from '@nestjs/common/constants';
import { HANDLER_METADATA } from '../context/handler-kind';
import type { PolicyUsage } from './policy-registry';

/**
 * A route a policy guards: an HTTP method and full path, or `GRAPHQL`, `WS`, `RPC` and what
 * names the handler.
 */
export interface PolicyRoute {
  method: string;
  path: string;
}

/** What the application was configured with (ApplicationConfig), read when routes are listed. */
export interface RoutePrefixes {
  globalPrefix: string;
  versioning?: VersioningOptions;
}

const asList = (value: unknown): string[] =>
  value === undefined ? [''] : Array.isArray(value) ? value.map(String) : [String(value)];

function versionSegments(controller: object, handler: object, prefixes: RoutePrefixes): string[] {
  const versioning = prefixes.versioning;
  if (versioning?.type !== VersioningType.URI) return [''];
  const declared =
    Reflect.getMetadata(VERSION_METADATA, handler) ??
    Reflect.getMetadata(VERSION_METADATA, controller) ??
    versioning.defaultVersion;
  if (declared === undefined) return [''];
  const uriPrefix = versioning.prefix === false ? '' : (versioning.prefix ?? 'v');
  return asList(declared).map((v) => (v === String(VERSION_NEUTRAL) ? '' : `${uriPrefix}${v}`));
}

function join(...parts: string[]): string {
  const path = parts
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '')
    .join('/');
  return `/${path}`;
}

/**
 * What a policy guards besides routes, as `method` and `path`: `GRAPHQL Query.quote` (or
 * `Mutation.`, `Subscription.`; `field <name>` for a field resolver), `WS <message>`,
 * `RPC <pattern as JSON>`.
 */
function handlerRoute(usage: PolicyUsage): PolicyRoute[] | null {
  const meta = (key: string): unknown => Reflect.getMetadata(key, usage.handler);
  // A resolver without an explicit name is named after its method.
  const field = String(meta(HANDLER_METADATA.graphqlResolverName) ?? usage.handler.name);
  switch (usage.kind) {
    case 'graphql':
      return [
        {
          method: 'GRAPHQL',
          path: `${String(meta(HANDLER_METADATA.graphqlResolverType))}.${field}`,
        },
      ];
    case 'graphql-field':
      return [{ method: 'GRAPHQL', path: `field ${field}` }];
    case 'ws':
      return [{ method: 'WS', path: String(meta(HANDLER_METADATA.wsMessageName)) }];
    case 'rpc':
      return [
        {
          method: 'RPC',
          path: JSON.stringify((meta(HANDLER_METADATA.rpcPattern) as unknown[])[0]),
        },
      ];
    default:
      return null;
  }
}

/** The HTTP method and full path of every route a policy guards (and its other handlers). */
export function routesOf(usages: readonly PolicyUsage[], prefixes: RoutePrefixes): PolicyRoute[] {
  return usages.flatMap(
    (usage) => handlerRoute(usage) ?? httpRoutesOf(usage.controller, usage.handler, prefixes),
  );
}

/**
 * The method and every full path of one route handler: each path of its controller and its
 * own, under the global prefix, a URI version and the path its module is mounted on
 * (RouterModule), as Nest routes them.
 */
export function httpRoutesOf(
  controller: object,
  handler: object,
  prefixes: RoutePrefixes,
  modulePath = '',
): PolicyRoute[] {
  const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) ?? RequestMethod.GET];
  const routes: PolicyRoute[] = [];
  for (const controllerPath of asList(Reflect.getMetadata(PATH_METADATA, controller))) {
    for (const handlerPath of asList(Reflect.getMetadata(PATH_METADATA, handler))) {
      for (const version of versionSegments(controller, handler, prefixes)) {
        const path = join(prefixes.globalPrefix, modulePath, version, controllerPath, handlerPath);
        routes.push({ method, path });
      }
    }
  }
  return routes;
}
