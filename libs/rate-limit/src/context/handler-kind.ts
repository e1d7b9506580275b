import { PATH_METADATA } from '@nestjs/common/constants';

/**
 * Where a handler runs, i.e. what the guard sees of a call to it:
 * - `http`: a controller route (Express or Fastify);
 * - `graphql`: a query, mutation or subscription resolver; `graphql-field`: a field resolver;
 * - `ws`: a WebSocket gateway's message handler; `rpc`: a microservice message or event handler.
 */
export type HandlerKind = 'http' | 'graphql' | 'graphql-field' | 'ws' | 'rpc';

/**
 * The metadata keys @nestjs/graphql, @nestjs/websockets and @nestjs/microservices put on
 * handlers. Spelled out rather than imported: those packages are optional peers, so the
 * library must load without them (a unit test checks the spellings against the packages).
 */
export const HANDLER_METADATA = {
  graphqlResolverType: 'graphql:resolver_type',
  graphqlProperty: 'graphql:resolve_property',
  wsMessage: 'websockets:message_mapping',
  rpcPattern: 'microservices:pattern',
} as const;

/** The kind of a method, or null when no Nest context calls it (a helper, a plain provider). */
export function handlerKind(handler: object): HandlerKind | null {
  if (Reflect.getMetadata(PATH_METADATA, handler) !== undefined) return 'http';
  if (Reflect.getMetadata(HANDLER_METADATA.rpcPattern, handler) !== undefined) return 'rpc';
  if (Reflect.getMetadata(HANDLER_METADATA.wsMessage, handler) !== undefined) return 'ws';
  if (Reflect.getMetadata(HANDLER_METADATA.graphqlProperty, handler) === true) {
    return 'graphql-field';
  }
  if (Reflect.getMetadata(HANDLER_METADATA.graphqlResolverType, handler) !== undefined) {
    return 'graphql';
  }
  return null;
}

/**
 * Every kind a method is: a controller method can be both an HTTP route and a microservice
 * handler, and its key must work in both.
 */
export function handlerKinds(handler: object): HandlerKind[] {
  const kinds: HandlerKind[] = [];
  if (Reflect.getMetadata(PATH_METADATA, handler) !== undefined) kinds.push('http');
  if (Reflect.getMetadata(HANDLER_METADATA.rpcPattern, handler) !== undefined) kinds.push('rpc');
  if (Reflect.getMetadata(HANDLER_METADATA.wsMessage, handler) !== undefined) kinds.push('ws');
  const graphql = handlerKind(handler);
  if (graphql === 'graphql' || graphql === 'graphql-field') kinds.push(graphql);
  return kinds;
}

/** `context.getType()` of each kind. */
export function contextTypeOf(kind: HandlerKind): 'http' | 'graphql' | 'ws' | 'rpc' {
  return kind === 'graphql-field' ? 'graphql' : kind;
}
