import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import type { KeySource } from '../policy/rate-limit-options.interface';
import type { HandlerKind } from './handler-kind';
import { checkKeySupported, takesDefaultPolicy } from './key-support';

const WHERE = 'OrdersMessages.countOrders';

/** The error `checkKeySupported` throws, or undefined. */
function rejectionOf(key: KeySource, kind: HandlerKind): RateLimitConfigError | undefined {
  try {
    checkKeySupported(WHERE, key, kind);
    return undefined;
  } catch (error) {
    return error as RateLimitConfigError;
  }
}

describe('checkKeySupported', () => {
  it.each<[string, KeySource]>([
    ['ip', 'ip'],
    ['user', 'user'],
    ['api-key', 'api-key'],
    ['{ header }', { header: 'x-tenant' }],
  ])('rejects key %s on a microservice handler, naming the handler', (_label, key) => {
    const error = rejectionOf(key, 'rpc');

    expect(error).toBeInstanceOf(RateLimitConfigError);
    expect(error?.where).toBe(WHERE);
    expect(error?.field).toBe('key');
    expect(error?.message).toBe(
      `Invalid rate limit options on ${WHERE}: "key" cannot be ${JSON.stringify(key)} on a ` +
        'microservice handler, whose messages carry no client address or headers: use a ' +
        "function of the payload (e.g. (ctx) => ctx.switchToRpc().getData().tenantId) or 'route'",
    );
  });

  it('rejects the connection key on a microservice handler as one without a client address', () => {
    expect(rejectionOf('connection', 'rpc')?.message).toContain(
      'cannot be "connection" on a microservice handler',
    );
  });

  it("accepts a function and 'route' on a microservice handler", () => {
    expect(rejectionOf(() => 'tenant-1', 'rpc')).toBeUndefined();
    expect(rejectionOf('route', 'rpc')).toBeUndefined();
  });

  it.each<HandlerKind>(['http', 'graphql', 'graphql-field'])(
    "rejects 'connection' on a %s handler",
    (kind) => {
      const error = rejectionOf('connection', kind);

      expect(error).toBeInstanceOf(RateLimitConfigError);
      expect(error?.message).toBe(
        `Invalid rate limit options on ${WHERE}: "key" is 'connection', which only a ` +
          "WebSocket gateway's message handler has",
      );
    },
  );

  it("accepts 'connection' on a WebSocket handler", () => {
    expect(rejectionOf('connection', 'ws')).toBeUndefined();
  });

  it.each<HandlerKind>(['http', 'graphql', 'graphql-field', 'ws'])(
    'accepts the request-based keys on a %s handler',
    (kind) => {
      for (const key of ['ip', 'user', 'api-key', 'route', { header: 'x-a' }] as KeySource[]) {
        expect(rejectionOf(key, kind)).toBeUndefined();
      }
    },
  );
});

describe('takesDefaultPolicy', () => {
  it.each<[HandlerKind, boolean]>([
    ['http', true],
    ['graphql', true],
    ['graphql-field', false],
    ['ws', false],
    ['rpc', false],
  ])('%s handlers: %s', (kind, expected) => {
    expect(takesDefaultPolicy(kind)).toBe(expected);
  });
});
