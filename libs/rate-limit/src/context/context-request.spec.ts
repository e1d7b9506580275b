import type { ExecutionContext } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { connectionIdOf, connectionNamer, requestOf, responseOf } from './context-request';

function contextOf(type: string, args: unknown[]): ExecutionContext {
  const host = new ExecutionContextHost(args);
  host.setType(type);
  return host;
}

/** A GraphQL call: (root, args, context, info). */
const graphqlCall = (gqlContext: unknown): ExecutionContext =>
  contextOf('graphql', [undefined, {}, gqlContext, {}]);

/** A WebSocket message: (client, data). */
const wsMessage = (client: object): ExecutionContext => contextOf('ws', [client, { text: 'hi' }]);

const request = (ip: string): object => ({
  headers: { 'x-test': ip },
  socket: { remoteAddress: ip },
});
const expressResponse = (): object => ({ setHeader: jest.fn() });
const fastifyReply = (req?: object): object => ({ header: jest.fn(), request: req });

describe('requestOf / responseOf on HTTP', () => {
  it('gives the request and response of the route', () => {
    const req = request('10.0.0.1');
    const res = expressResponse();
    const context = contextOf('http', [req, res, jest.fn()]);

    expect(requestOf(context)).toBe(req);
    expect(responseOf(context)).toBe(res);
  });
});

describe('requestOf / responseOf on GraphQL', () => {
  it('Apollo on Express { req }: the request, and its linked response req.res', () => {
    const res = expressResponse();
    const req = { ...request('10.0.0.2'), res };
    const context = graphqlCall({ req });

    expect(requestOf(context)).toBe(req);
    expect(responseOf(context)).toBe(res);
  });

  it('Apollo on Express { req, res }: the context response', () => {
    const req = request('10.0.0.3');
    const res = expressResponse();
    const context = graphqlCall({ req, res });

    expect(requestOf(context)).toBe(req);
    expect(responseOf(context)).toBe(res);
  });

  it('Apollo on Fastify { req, reply }: the request and the reply', () => {
    const req = request('10.0.0.4');
    const reply = fastifyReply();
    const context = graphqlCall({ req, reply });

    expect(requestOf(context)).toBe(req);
    expect(responseOf(context)).toBe(reply);
  });

  it("Mercurius { app, reply }: the reply's request and the reply", () => {
    const req = request('10.0.0.5');
    const reply = fastifyReply(req);
    const context = graphqlCall({ app: {}, reply });

    expect(requestOf(context)).toBe(req);
    expect(responseOf(context)).toBe(reply);
  });

  it('Mercurius with a context function giving { req, reply }: the request and the reply', () => {
    const req = request('10.0.0.6');
    const reply = fastifyReply({ other: true });
    const context = graphqlCall({ req, reply });

    expect(requestOf(context)).toBe(req);
    expect(responseOf(context)).toBe(reply);
  });

  it('gives undefined for a context without request or response', () => {
    const context = graphqlCall(undefined);

    expect(requestOf(context)).toBeUndefined();
    expect(responseOf(context)).toBeUndefined();
  });
});

describe('requestOf / responseOf / connectionIdOf on WebSocket', () => {
  it("socket.io: the handshake request, the socket's id and no response", () => {
    const handshake = request('10.0.0.7');
    const context = wsMessage({ id: 'sio-abc', request: handshake });

    expect(requestOf(context)).toBe(handshake);
    expect(responseOf(context)).toBeUndefined();
    expect(connectionIdOf(context)).toBe('sio-abc');
  });

  it('ws: a stand-in request over the TCP socket, the same one for each message', () => {
    const socket = { remoteAddress: '10.0.0.8' };
    const client = { _socket: socket };

    const first = requestOf(wsMessage(client));
    const second = requestOf(wsMessage(client));

    expect(first).toEqual({ headers: {}, socket });
    expect(second).toBe(first);
    expect(responseOf(wsMessage(client))).toBeUndefined();
  });

  it('ws: a client with neither a request nor a socket has no request', () => {
    expect(requestOf(wsMessage({}))).toBeUndefined();
  });

  it('ws: one id per client object, stable across messages and distinct across clients', () => {
    const a = { _socket: { remoteAddress: '10.0.0.9' } };
    const b = { _socket: { remoteAddress: '10.0.0.9' } };

    const idA = connectionIdOf(wsMessage(a));
    const idB = connectionIdOf(wsMessage(b));

    expect(idA).toMatch(/^[\w-]{12}\.\d+$/);
    expect(idB).toMatch(/^[\w-]{12}\.\d+$/);
    expect(connectionIdOf(wsMessage(a))).toBe(idA);
    expect(connectionIdOf(wsMessage(b))).toBe(idB);
    expect(idB).not.toBe(idA);
  });

  it('ws: two processes (two namers) never name their first connections alike', () => {
    const [one, other] = [connectionNamer(), connectionNamer()];
    const client = {};
    expect(one(client)).toMatch(/\.1$/);
    expect(other(client)).toMatch(/\.1$/);
    expect(one(client)).not.toBe(other(client)); // a pid prefix would be 1.1 in both containers
  });

  it('an empty socket.io id is not an identity: the client gets a generated one', () => {
    const client = { id: '' };

    const id = connectionIdOf(wsMessage(client));

    expect(id).toMatch(/^[\w-]{12}\.\d+$/);
    expect(connectionIdOf(wsMessage(client))).toBe(id);
  });
});

describe('requestOf / responseOf on a microservice message', () => {
  it('gives no request and no response', () => {
    const context = contextOf('rpc', [{ tenantId: 't1' }, { getPattern: () => 'x' }]);

    expect(requestOf(context)).toBeUndefined();
    expect(responseOf(context)).toBeUndefined();
  });
});
