import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import type { KeySource } from '../policy/rate-limit-options.interface';
import type { HandlerKind } from './handler-kind';

/**
 * Fails the bootstrap where a key source cannot name a client: a microservice message has no
 * address or headers (its identity is a function of the payload, or the route), and only a
 * WebSocket has a connection.
 */
export function checkKeySupported(where: string, key: KeySource, kind: HandlerKind): void {
  if (kind === 'rpc' && typeof key !== 'function' && key !== 'route') {
    throw new RateLimitConfigError(
      where,
      'key',
      `cannot be ${JSON.stringify(key)} on a microservice handler, whose messages carry no ` +
        'client address or headers: use a function of the payload (e.g. (ctx) => ' +
        "ctx.switchToRpc().getData().tenantId) or 'route'",
    );
  }
  if (key === 'connection' && kind !== 'ws') {
    throw new RateLimitConfigError(
      where,
      'key',
      "is 'connection', which only a WebSocket gateway's message handler has",
    );
  }
}

/** The module's `defaultPolicy` covers the handlers that have a request: routes and resolvers. */
export function takesDefaultPolicy(kind: HandlerKind): boolean {
  return kind === 'http' || kind === 'graphql';
}
