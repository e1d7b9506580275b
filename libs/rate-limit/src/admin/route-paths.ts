import {
  RequestMethod,
  VERSION_NEUTRAL,
  VersioningType,
  type VersioningOptions,
} from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, VERSION_METADATA } from '@nestjs/common/constants';
import { HANDLER_METADATA } from '../context/handler-kind';
import type { PolicyUsage } from '../registry/policy-registry';
import type { PolicyRoute } from './policy-view.interface';

/** What the application was configured with (ApplicationConfig), read when routes are listed. */
export interface RoutePrefixes {
  globalPrefix: string;
  versioning?: VersioningOptions;
}

const asList = (value: unknown): string[] =>
  value === undefined ? [''] : Array.isArray(value) ? value.map(String) : [String(value)];

function versionSegments(usage: PolicyUsage, prefixes: RoutePrefixes): string[] {
  const versioning = prefixes.versioning;
  if (versioning?.type !== VersioningType.URI) return [''];
  const declared =
    Reflect.getMetadata(VERSION_METADATA, usage.handler) ??
    Reflect.getMetadata(VERSION_METADATA, usage.controller) ??
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
function handlerRoute(usage: PolicyUsage): PolicyRoute | null {
  const meta = (key: string): unknown => Reflect.getMetadata(key, usage.handler);
  // A resolver without an explicit name is named after its method.
  const field = String(meta(HANDLER_METADATA.graphqlResolverName) ?? usage.handler.name);
  switch (usage.kind) {
    case 'graphql':
      return {
        method: 'GRAPHQL',
        path: `${String(meta(HANDLER_METADATA.graphqlResolverType))}.${field}`,
      };
    case 'graphql-field':
      return { method: 'GRAPHQL', path: `field ${field}` };
    case 'ws':
      return { method: 'WS', path: String(meta(HANDLER_METADATA.wsMessageName)) };
    case 'rpc':
      return {
        method: 'RPC',
        path: JSON.stringify((meta(HANDLER_METADATA.rpcPattern) as unknown[])[0]),
      };
    default:
      return null;
  }
}

/** The HTTP method and full path of every route a policy guards (and its other handlers). */
export function routesOf(usages: readonly PolicyUsage[], prefixes: RoutePrefixes): PolicyRoute[] {
  const routes: PolicyRoute[] = [];
  for (const usage of usages) {
    const other = handlerRoute(usage);
    if (other) {
      routes.push(other);
      continue;
    }
    const method =
      RequestMethod[Reflect.getMetadata(METHOD_METADATA, usage.handler) ?? RequestMethod.GET];
    for (const controllerPath of asList(Reflect.getMetadata(PATH_METADATA, usage.controller))) {
      for (const handlerPath of asList(Reflect.getMetadata(PATH_METADATA, usage.handler))) {
        for (const version of versionSegments(usage, prefixes)) {
          routes.push({
            method,
            path: join(prefixes.globalPrefix, version, controllerPath, handlerPath),
          });
        }
      }
    }
  }
  return routes;
}
