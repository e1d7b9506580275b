import type { ExecutionContext } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { NAMED_KEY_SOURCES, type KeySource } from '../policy/rate-limit-options.interface';
import { connectionIdOf, requestOf, type ContextRequest } from '../context/context-request';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { isHeaderSource } from '../policy/tier-source';
import type { ClientIpResolver } from './client-ip';

/** Resolves who a request counts against; built once per policy at bootstrap. */
export type IdentityResolver = (context: ExecutionContext) => string | Promise<string>;

/** The request behind the call; a microservice message has none (bootstrap allows it no such key). */
function request(context: ExecutionContext): ContextRequest {
  const req = requestOf(context);
  if (req) return req;
  throw new RateLimitConfigError(
    `a ${context.getType()} handler`,
    'key',
    'needs a client address or headers, which this call does not carry',
  );
}

function socketRequest(req: ContextRequest): IncomingMessage {
  return req.raw ?? req; // Fastify wraps the Node request
}

export function headerValue(req: ContextRequest, name: string): string | undefined {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/**
 * Identities carry their kind (`ip:`, `user:`, `key:`, `h:`, `fn:`, `conn:`) so that, say, a user id
 * can never collide with an IP address or an API key.
 */
export function createIdentityResolver(
  source: KeySource,
  clientIp: ClientIpResolver,
  apiKeyHeader: string,
  policyName: string,
): IdentityResolver {
  const byIp = (ctx: ExecutionContext): string => `ip:${clientIp(socketRequest(request(ctx)))}`;
  if (typeof source === 'function') {
    // No usable name: the client IP; a microservice message has none, so every such message of
    // the policy shares one budget (as with key 'route') rather than failing.
    const unnamed = (ctx: ExecutionContext): string =>
      requestOf(ctx) === undefined ? `route:${policyName}` : byIp(ctx);
    const named = (id: unknown, ctx: ExecutionContext): string =>
      typeof id === 'string' && id !== '' ? `fn:${id}` : unnamed(ctx);
    // A synchronous function keeps the request synchronous; only a thenable (any promise
    // library's) is awaited.
    return (ctx) => {
      const id: unknown = source(ctx);
      return isThenable(id)
        ? Promise.resolve(id).then((resolved) => named(resolved, ctx))
        : named(id, ctx);
    };
  }
  if (typeof source === 'object') {
    const header = source.header.toLowerCase();
    return (ctx) => {
      const value = headerValue(request(ctx), header);
      return value === undefined ? byIp(ctx) : `h:${header}:${value}`;
    };
  }
  switch (source) {
    case 'ip':
      return byIp;
    case 'route':
      return () => `route:${policyName}`;
    case 'connection':
      return (ctx) => `conn:${connectionIdOf(ctx)}`;
    case 'api-key':
      return (ctx) => {
        const value = headerValue(request(ctx), apiKeyHeader);
        return value === undefined ? byIp(ctx) : `key:${value}`;
      };
    case 'user':
      return (ctx) => {
        const user = request(ctx).user;
        const id = user?.id ?? user?.sub ?? user?.userId;
        return id === undefined || id === null ? byIp(ctx) : `user:${String(id)}`;
      };
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

export function isKeySource(value: unknown): value is KeySource {
  if (typeof value === 'function' || (NAMED_KEY_SOURCES as readonly unknown[]).includes(value))
    return true;
  return isHeaderSource(value);
}
