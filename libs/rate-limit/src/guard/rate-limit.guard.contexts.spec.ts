/**
 * The guard alone on GraphQL, WebSocket and microservice calls, with a stubbed route table,
 * registry and engine: where headers go (an operation's HTTP response; nowhere else), and the
 * error each context answers a rejection with.
 */
import { Logger } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { WsException } from '@nestjs/websockets';
import { GraphQLError } from 'graphql';
import {
  graphqlContext,
  incoming,
  recordingReply,
  recordingResponse,
  rpcContext,
  wsContext,
  type Handler,
} from '../../test/support/execution-contexts';
import {
  activate,
  contextErrorsLoaded,
  decision,
  guardHarness,
  policy,
  routePolicy,
  verdict,
} from '../../test/support/guard-harness';
import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { HandlerKind } from '../context/handler-kind';

function limited() {}
const ADMITTED = verdict(decision('p', { remaining: 2 }));
const REJECTED = verdict(decision('p', { retryAfterMs: 2_500 }));
const FAIL_CLOSED: RateLimitVerdict = { allowed: false, source: 'fail-closed', decisions: [] };
const REJECTION = {
  code: 'TOO_MANY_REQUESTS',
  statusCode: 429,
  message: 'Too Many Requests',
  policy: 'p',
  retryAfter: 3,
};
const UNAVAILABLE = {
  code: 'SERVICE_UNAVAILABLE',
  statusCode: 503,
  message: 'Rate limiting is unavailable',
};

beforeAll(() => contextErrorsLoaded);

function setup(kind: HandlerKind, answer: RateLimitVerdict) {
  return guardHarness({
    routes: new Map<Handler, { kind: HandlerKind; policies: ReturnType<typeof routePolicy>[] }>([
      [limited, { kind, policies: [routePolicy('p')] }],
    ]),
    policies: [policy('p')],
    verdicts: () => answer,
  });
}

describe('RateLimitGuard on GraphQL', () => {
  const target = { handler: limited };

  it("writes the headers on the operation's response: Express's res, Fastify's reply", async () => {
    const res = recordingResponse();
    const reply = recordingReply();
    const { guard } = setup('graphql', ADMITTED);
    expect(await activate(guard, graphqlContext(target, { req: incoming(), res }))).toBe(true);
    expect(await activate(guard, graphqlContext(target, { req: incoming(), reply }))).toBe(true);
    for (const headers of [res.headers, reply.headers]) {
      expect(headers).toMatchObject({ 'ratelimit-limit': '5', 'ratelimit-remaining': '2' });
    }
  });

  it("rejects with a GraphQLError at the field's path, carrying the rejection, and Retry-After", async () => {
    const res = recordingResponse();
    const info = { path: { prev: { prev: undefined, key: 'quote' }, key: 'translation' } };
    const { guard } = setup('graphql', REJECTED);
    const error = await activate(
      guard,
      graphqlContext(target, { req: incoming(), res }, info),
    ).catch((e: unknown) => e as GraphQLError);
    expect(error).toBeInstanceOf(GraphQLError);
    expect(error).toMatchObject({ message: 'Too Many Requests', path: ['quote', 'translation'] });
    const { message: _, ...extensions } = REJECTION;
    expect((error as GraphQLError).extensions).toEqual(extensions);
    expect(res.headers['retry-after']).toBe('3');
  });

  it('decides the calls of one operation once it rejected: later ones repeat it, undecided', async () => {
    const { guard, decided } = setup('graphql', REJECTED);
    const operation = { req: incoming(), res: recordingResponse() };
    for (let i = 0; i < 3; i++) {
      await expect(activate(guard, graphqlContext(target, operation))).rejects.toThrow(
        GraphQLError,
      );
    }
    expect(decided).toHaveLength(1);
    // Another operation (another HTTP request) is decided afresh.
    await expect(activate(guard, graphqlContext(target, { req: incoming() }))).rejects.toThrow();
    expect(decided).toHaveLength(2);
  });

  it('says once how to pass the reply when an operation has none, and still limits', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { guard } = setup('graphql', REJECTED);
      for (let i = 0; i < 2; i++) {
        const call = graphqlContext(target, { req: incoming() });
        await expect(activate(guard, call)).rejects.toThrow(GraphQLError);
      }
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toContain('context: (req, reply) => ({ req, reply })');
    } finally {
      warn.mockRestore();
    }
  });

  it('answers SERVICE_UNAVAILABLE when Redis cannot decide and onRedisError is closed', async () => {
    const { guard } = setup('graphql', FAIL_CLOSED);
    const error = await activate(guard, graphqlContext(target)).catch((e: unknown) => e);
    expect((error as GraphQLError).extensions).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      statusCode: 503,
    });
  });
});

describe('RateLimitGuard on WebSocket messages and microservice calls', () => {
  it('rejects a message with a WsException the gateway emits as `exception`; no headers', async () => {
    const client = { request: incoming(), setHeader: jest.fn() };
    const { guard } = setup('ws', REJECTED);
    const error = await activate(guard, wsContext({ handler: limited }, client)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WsException);
    expect((error as WsException).getError()).toEqual({ status: 'error', ...REJECTION });
    expect(client.setHeader).not.toHaveBeenCalled();
  });

  it('answers a socket.io acknowledgement with the rejection too', async () => {
    const ack = jest.fn();
    const { guard } = setup('ws', REJECTED);
    const call = wsContext({ handler: limited }, { request: incoming() }, { text: 'hi' }, ack);
    await expect(activate(guard, call)).rejects.toThrow(WsException);
    expect(ack).toHaveBeenCalledWith({ status: 'error', ...REJECTION });
  });

  it('rejects a microservice call with an RpcException, and a fail-closed one as unavailable', async () => {
    for (const [answer, expected] of [
      [REJECTED, REJECTION],
      [FAIL_CLOSED, UNAVAILABLE],
    ] as const) {
      const { guard } = setup('rpc', answer);
      const error = await activate(guard, rpcContext({ handler: limited })).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RpcException);
      expect((error as RpcException).getError()).toEqual(expected);
    }
  });

  it('admits a message or a call after its decision, writing nothing', async () => {
    for (const kind of ['ws', 'rpc'] as const) {
      const { guard, decided } = setup(kind, ADMITTED);
      const call =
        kind === 'ws' ? wsContext({ handler: limited }) : rpcContext({ handler: limited });
      expect(await activate(guard, call)).toBe(true);
      expect(decided).toHaveLength(1);
    }
  });
});
