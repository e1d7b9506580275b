import type { ExecutionContext } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** A response of Express (`setHeader`) or Fastify (`header`). */
export interface HeaderWriter {
  setHeader?(name: string, value: string): unknown;
  header?(name: string, value: string): unknown;
}

/** The HTTP request behind a call, as identities read it (Fastify's is wrapped: `raw`). */
export interface ContextRequest extends IncomingMessage {
  user?: { id?: unknown; sub?: unknown; userId?: unknown } | null;
  raw?: IncomingMessage;
}

/**
 * What a GraphQL driver puts in the context: Apollo `{ req }` (Express's request links its
 * response as `req.res`; on Fastify give `context: (req, reply) => ({ req, reply })`), Mercurius
 * `{ req, reply }`.
 */
interface GraphqlContext {
  req?: ContextRequest & { res?: HeaderWriter };
  request?: ContextRequest;
  reply?: HeaderWriter & { request?: ContextRequest };
  res?: HeaderWriter;
}

/** A socket.io socket keeps its handshake request; a `ws` socket only its TCP socket. */
interface WsClient {
  request?: ContextRequest;
  _socket?: Socket;
}

// A `ws` client's stand-in request, built once per connection.
const wsRequests = new WeakMap<object, ContextRequest>();

/**
 * The HTTP request behind an HTTP, GraphQL or WebSocket call; undefined for a microservice
 * message (there is none: its identity comes from a key function of the payload).
 */
export function requestOf(context: ExecutionContext): ContextRequest | undefined {
  switch (context.getType<string>()) {
    case 'http':
      return context.switchToHttp().getRequest<ContextRequest>();
    case 'graphql': {
      const gql = context.getArgByIndex<GraphqlContext | undefined>(2);
      return gql?.req ?? gql?.request ?? gql?.reply?.request;
    }
    case 'ws':
      return wsRequestOf(context.switchToWs().getClient<WsClient>());
    default:
      return undefined;
  }
}

/** Where the rate-limit headers go: the HTTP response, when there is one. */
export function responseOf(context: ExecutionContext): HeaderWriter | undefined {
  const type = context.getType<string>();
  if (type === 'http') return context.switchToHttp().getResponse<HeaderWriter>();
  if (type !== 'graphql') return undefined;
  const gql = context.getArgByIndex<GraphqlContext | undefined>(2);
  return gql?.res ?? gql?.reply ?? gql?.req?.res;
}

function wsRequestOf(client: WsClient): ContextRequest | undefined {
  if (client.request) return client.request;
  let request = wsRequests.get(client);
  if (!request && client._socket) {
    // The upgrade request is not kept by `ws`: no headers, so the peer address is the client
    // (behind a proxy, use socket.io or a key function).
    request = { headers: {}, socket: client._socket } as ContextRequest;
    wsRequests.set(client, request);
  }
  return request;
}

/**
 * Names `ws` connections (socket.io has ids of its own). The prefix is random per process, not
 * its pid: instances in containers are all pid 1, and two sockets on two instances must never
 * share a budget.
 */
export function connectionNamer(
  prefix = randomBytes(9).toString('base64url'),
): (client: object) => string {
  let count = 0;
  const ids = new WeakMap<object, string>();
  return (client) => {
    let id = ids.get(client);
    if (id === undefined) ids.set(client, (id = `${prefix}.${++count}`));
    return id;
  };
}

const nameConnection = connectionNamer();

/** One identity per WebSocket connection: socket.io's id, else one given at first sight. */
export function connectionIdOf(context: ExecutionContext): string {
  const client = context.switchToWs().getClient<{ id?: unknown }>();
  if (typeof client.id === 'string' && client.id !== '') return client.id;
  return nameConnection(client);
}
