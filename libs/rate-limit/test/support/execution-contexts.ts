/**
 * ExecutionContexts for unit tests of what runs in a guard, without booting Nest: the arguments
 * each kind of handler gets, in the order Nest passes them (as nestjs/throttler's tests build
 * theirs). `cls` and `handler` are what a route table looks a route up by.
 */
import type { ExecutionContext } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';

export type Handler = (...args: unknown[]) => unknown;

export interface Target {
  cls?: new (...args: never[]) => unknown;
  handler?: Handler;
}

/** An Express-style response that records the headers set on it. */
export interface RecordingResponse {
  headers: Record<string, string>;
  setHeader(name: string, value: string): void;
}

export function recordingResponse(): RecordingResponse {
  const headers: Record<string, string> = {};
  return { headers, setHeader: (name, value) => void (headers[name.toLowerCase()] = value) };
}

/** A Fastify-style reply: `header()` instead of `setHeader()`. */
export function recordingReply(): {
  headers: Record<string, string>;
  header(n: string, v: string): void;
} {
  const headers: Record<string, string> = {};
  return { headers, header: (name, value) => void (headers[name.toLowerCase()] = value) };
}

/** A request from `address` with these headers (lower-case names, as Node gives them). */
export function incoming(address = '192.0.2.1', headers: Record<string, string> = {}): object {
  return { headers, socket: { remoteAddress: address }, method: 'GET', url: '/limited' };
}

function context(type: string, args: unknown[], target: Target): ExecutionContext {
  const host = new ExecutionContextHost(
    args,
    target.cls ?? class Limited {},
    target.handler ?? function handler() {},
  );
  host.setType(type);
  return host;
}

/** An HTTP route: (request, response, next). */
export function httpContext(
  target: Target = {},
  request: object = incoming(),
  response: object = recordingResponse(),
): ExecutionContext {
  return context('http', [request, response, () => undefined], target);
}

/**
 * A GraphQL resolver: (root, args, context, info). `gqlContext` is the operation's context
 * value (`{ req, res }` on Express, `{ req, reply }` on Fastify): one object per operation.
 */
export function graphqlContext(
  target: Target = {},
  gqlContext: object = { req: incoming(), res: recordingResponse() },
  info: object = { path: { prev: undefined, key: 'field' } },
): ExecutionContext {
  return context('graphql', [undefined, {}, gqlContext, info], target);
}

/** A gateway message: (client, data), then socket.io's acknowledgement if any, then the pattern. */
export function wsContext(
  target: Target = {},
  client: object = { request: incoming() },
  data: unknown = {},
  ack?: (answer: object) => void,
): ExecutionContext {
  return context('ws', ack ? [client, data, ack, 'pattern'] : [client, data], target);
}

/** A microservice message: (data, transport context). */
export function rpcContext(target: Target = {}, data: unknown = {}): ExecutionContext {
  return context('rpc', [data, {}], target);
}
