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
  graphqlResolverName: 'graphql:resolver_name',
  graphqlProperty: 'graphql:resolve_property',
  wsMessage: 'websockets:message_mapping',
  wsMessageName: 'message',
  rpcPattern: 'microservices:pattern',
} as const;

/** The kind of a method, or null when no Nest context calls it (a helper, a plain provider). */
export function handlerKind(handler: object): HandlerKind | null {
  return handlerKinds(handler)[0] ?? null;
}

/**
 * Every kind a method is, the first being the one `handlerKind` names: a controller method can
 * be both an HTTP route and a microservice handler, and its key must work in both.
 */
export function handlerKinds(handler: object): HandlerKind[] {
  const has = (key: string): boolean => Reflect.getMetadata(key, handler) !== undefined;
  const kinds: HandlerKind[] = [];
  if (has(PATH_METADATA)) kinds.push('http');
  if (has(HANDLER_METADATA.rpcPattern)) kinds.push('rpc');
  if (has(HANDLER_METADATA.wsMessage)) kinds.push('ws');
  if (Reflect.getMetadata(HANDLER_METADATA.graphqlProperty, handler) === true) {
    kinds.push('graphql-field');
  } else if (has(HANDLER_METADATA.graphqlResolverType)) {
    kinds.push('graphql');
  }
  return kinds;
}
