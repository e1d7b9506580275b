import { Logger } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { WsException } from '@nestjs/websockets';
import {
  GraphQLError,
  locatedError,
  parse,
  Source,
  type FieldNode,
  type OperationDefinitionNode,
} from 'graphql';
import { GraphqlRejection } from './graphql-rejection';
import type { HandlerKind } from '../context/handler-kind';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import type { RouteTable } from '../registry/route-table';
import {
  ContextRejections,
  RATE_LIMITING_UNAVAILABLE,
  tooManyRequests,
  type RateLimitRejection,
} from './context-rejections';

const REJECTION: RateLimitRejection = {
  code: 'TOO_MANY_REQUESTS',
  statusCode: 429,
  message: 'Too Many Requests',
  policy: 'quotes',
  retryAfter: 3,
};

const routesLimiting = (...kinds: HandlerKind[]): RouteTable =>
  ({ limitedKinds: () => new Set(kinds) }) as unknown as RouteTable;

async function loaded(...kinds: HandlerKind[]): Promise<ContextRejections> {
  const rejections = new ContextRejections(routesLimiting());
  await rejections.load(new Set(kinds));
  return rejections;
}

/** The number of lines of an error's stack: 1 when no frame was captured. */
const stackLines = (error: Error): number => (error.stack ?? '').split('\n').length;

describe('ContextRejections.error', () => {
  afterEach(() => jest.restoreAllMocks());

  it('answers GraphQL with a GraphQLError whose extensions are the rejection minus message', async () => {
    const rejections = await loaded('graphql', 'ws', 'rpc');

    const error = rejections.error('graphql', REJECTION);

    expect(error).toBeInstanceOf(GraphQLError);
    expect(error).toBeInstanceOf(GraphqlRejection);
    expect(error.message).toBe('Too Many Requests');
    expect((error as GraphQLError).extensions).toEqual({
      code: 'TOO_MANY_REQUESTS',
      statusCode: 429,
      policy: 'quotes',
      retryAfter: 3,
    });
  });

  it('locates a GraphQL rejection as graphql-js would, so graphql-js reports it as it is', async () => {
    const rejections = await loaded('graphql');
    const source = new Source('{\n  a: quote { id }\r\n  b: quote { id } }');
    const operation = parse(source).definitions[0] as OperationDefinitionNode;
    const field = operation.selectionSet.selections[1] as FieldNode;
    const info = { fieldNodes: [field], path: { prev: { prev: undefined, key: 'b' }, key: 0 } };
    const context = { getArgByIndex: (i: number) => [{}, {}, {}, info][i] };

    const error = rejections.error('graphql', REJECTION, context as never) as GraphQLError;
    const byGraphql = locatedError(new Error('Too Many Requests'), [field], ['b', 0]);

    expect(error.path).toEqual(['b', 0]);
    expect(error.locations).toEqual(byGraphql.locations);
    expect(error.locations).toEqual([{ line: 3, column: 3 }]);
    expect(locatedError(error, [field], ['b', 0])).toBe(error);
  });

  it('answers a WebSocket message with a WsException carrying an error status', async () => {
    const rejections = await loaded('graphql', 'ws', 'rpc');

    const error = rejections.error('ws', REJECTION);

    expect(error).toBeInstanceOf(WsException);
    expect((error as WsException).getError()).toEqual({
      status: 'error',
      code: 'TOO_MANY_REQUESTS',
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'quotes',
      retryAfter: 3,
    });
  });

  it('answers a microservice message with an RpcException carrying the rejection', async () => {
    const rejections = await loaded('graphql', 'ws', 'rpc');

    const error = rejections.error('rpc', RATE_LIMITING_UNAVAILABLE);

    expect(error).toBeInstanceOf(RpcException);
    expect((error as RpcException).getError()).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      statusCode: 503,
      message: 'Rate limiting is unavailable',
    });
  });

  it('captures no stack frames, and restores Error.stackTraceLimit afterwards', async () => {
    const rejections = await loaded('graphql', 'ws', 'rpc');
    const limit = Error.stackTraceLimit;

    const errors = ['graphql', 'ws', 'rpc'].map((type) => rejections.error(type, REJECTION));

    expect(errors.map(stackLines)).toEqual([1, 1, 1]);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(stackLines(new Error('ordinary'))).toBeGreaterThan(1);
  });

  it('falls back to a plain error with the rejection fields, and warns, when not loaded', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const rejections = await loaded('rpc');

    const error = rejections.error('ws', REJECTION);

    expect(error.constructor).toBe(Error);
    expect({ ...error, message: error.message }).toEqual(REJECTION);
    expect(warn).toHaveBeenCalledWith('No ws error class loaded; rejecting with a plain error');
  });

  it('loads the GraphQL class for field resolvers too', async () => {
    const rejections = await loaded('graphql-field');

    expect(rejections.error('graphql', REJECTION)).toBeInstanceOf(GraphQLError);
  });

  it('loads at bootstrap the classes of the kinds the route table limits', async () => {
    const rejections = new ContextRejections(routesLimiting('rpc'));

    await rejections.onApplicationBootstrap();

    expect(rejections.error('rpc', REJECTION)).toBeInstanceOf(RpcException);
  });
});

describe('tooManyRequests', () => {
  const decision: RateLimitDecision = {
    policy: 'quotes',
    allowed: false,
    shadow: false,
    limit: 5,
    remaining: 0,
    resetMs: 9_000,
    retryAfterMs: 2_001,
    reason: 'limit',
    source: 'memory',
  };

  it('describes a rejection with its policy and whole seconds to wait, rounded up', () => {
    expect(tooManyRequests(decision)).toEqual({
      code: 'TOO_MANY_REQUESTS',
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'quotes',
      retryAfter: 3,
    });
  });

  it('words a blocked client and a denied one', () => {
    expect(tooManyRequests({ ...decision, reason: 'blocked' }).message).toBe(
      'Too Many Requests: temporarily blocked',
    );
    expect(tooManyRequests({ ...decision, reason: 'denied', message: 'Banned' }).message).toBe(
      'Banned',
    );
  });
});
