/**
 * The bootstrap scan and the guard with odd applications, on a real Redis: value providers that
 * are primitives, arrays, null or null-prototype objects; a request-scoped resolver; a resolver
 * limited by API key; a class-level @RateLimit on a gateway; a controller method that is both an
 * HTTP route and a microservice handler.
 */
import { Controller, Get, Injectable, Module, Scope, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule, Query, Resolver } from '@nestjs/graphql';
import {
  ClientProxyFactory,
  MessagePattern,
  Transport,
  type ClientProxy,
  type MicroserviceOptions,
} from '@nestjs/microservices';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { Test } from '@nestjs/testing';
import { firstValueFrom } from 'rxjs';
import request from 'supertest';
import { RateLimit, RateLimitGuard, RateLimitModule } from '@app/rate-limit';
import { findFreePort as freePort } from '../../support/processes/free-port';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { windowWithoutBoundary } from '../../support/window-headroom';
import type { WsTestClient } from '../fixtures/ws-clients';

/** Fixed windows that do not end during a test (a new one would admit a client again). */
const WINDOW = windowWithoutBoundary();

@Resolver()
@Injectable({ scope: Scope.REQUEST })
class ScopedResolver {
  @Query(() => String)
  @RateLimit({ name: 'hostile.scoped', limit: 1, window: WINDOW })
  scoped(): string {
    return 'scoped';
  }
}

@Resolver()
class KeyedResolver {
  @Query(() => String)
  @RateLimit({ name: 'hostile.keyed', limit: 1, window: WINDOW, key: 'api-key' })
  keyed(): string {
    return 'keyed';
  }
}

/** Every message handler of the gateway shares the class's limit, per connection. */
@WebSocketGateway({ path: '/hostile-ws' })
@RateLimit({ name: 'hostile.gateway', limit: 2, window: WINDOW, key: 'connection' })
class ClassLimitedGateway {
  @SubscribeMessage('one')
  one(): { event: string; data: number } {
    return { event: 'one', data: 1 };
  }

  @SubscribeMessage('two')
  two(): { event: string; data: number } {
    return { event: 'two', data: 2 };
  }

  /** Answers through the client's ack callback (a plain return value). */
  @SubscribeMessage('acked')
  acked(): string {
    return 'acked';
  }
}

@Controller()
class HybridController {
  @Get('hybrid')
  @MessagePattern('hybrid')
  @RateLimit({ name: 'hostile.hybrid', limit: 5, window: WINDOW })
  hybrid(): string {
    return 'hybrid';
  }
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

describe('a request-scoped resolver, api-key identities, a limited gateway class', () => {
  let app: INestApplication;
  const sockets: WsTestClient[] = [];
  beforeAll(async () => {
    @Module({
      imports: [
        RateLimitModule.forRoot({ redis: redis.url, keyPrefix: uniquePrefix('hboot') }),
        GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, autoSchemaFile: true }),
      ],
      providers: [
        { provide: APP_GUARD, useClass: RateLimitGuard },
        ScopedResolver,
        KeyedResolver,
        ClassLimitedGateway,
      ],
    })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await app?.close();
  });

  const gql = (query: string, headers: Record<string, string> = {}) =>
    request(app.getHttpServer()).post('/graphql').set(headers).send({ query });
  const code = (body: { errors?: { extensions?: { code?: string } }[] }) =>
    body.errors?.[0]?.extensions?.code;

  it('a request-scoped resolver is limited (1 per hour)', async () => {
    const first = await gql('{ scoped }');
    const second = await gql('{ scoped }');
    expect((first.body as { data?: { scoped?: string } }).data?.scoped).toBe('scoped');
    expect(code(second.body as object)).toBe('TOO_MANY_REQUESTS');
  });

  it("key 'api-key' on a resolver: one budget per key, the header read from the HTTP request", async () => {
    const answers = [];
    for (const key of ['k1', 'k1', 'k2'])
      answers.push(await gql('{ keyed }', { 'x-api-key': key }));
    expect(answers.map((res) => code(res.body as object) ?? 'ok')).toEqual([
      'ok',
      'TOO_MANY_REQUESTS',
      'ok',
    ]);
  });

  it('a class-level @RateLimit on a gateway: 2 messages per connection over both handlers', async () => {
    const socket = await connectSocketIoAt(await app.getUrl());
    sockets.push(socket);
    for (const event of ['one', 'two', 'one', 'two']) socket.send(event);
    const replies = await socket.replies(4);
    expect(replies.filter((reply) => reply.event === 'exception')).toHaveLength(2);
  });

  it('socket.io acks: a rejected message answers the ack, the client is not left hanging', async () => {
    const { io } = await import('socket.io-client');
    const socket = io(await app.getUrl(), {
      path: '/hostile-ws',
      transports: ['websocket'],
      reconnection: false,
    });
    try {
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const exception = new Promise<unknown>((resolve) => socket.once('exception', resolve));
      const acks: unknown[] = [];
      for (let i = 0; i < 3; i++) socket.emit('acked', {}, (answer: unknown) => acks.push(answer));
      // The third message's rejection arrives as the `exception` event; by then its ack, if
      // it were ever to be called, would have been.
      await exception;
      expect(acks.filter((answer) => answer === 'acked')).toHaveLength(2);
      expect(acks).toHaveLength(3);
    } finally {
      socket.close();
    }
  });
});

/** The test gateway's path. */
async function connectSocketIoAt(url: string): Promise<WsTestClient> {
  const { io } = await import('socket.io-client');
  const socket = io(url, { path: '/hostile-ws', transports: ['websocket'], reconnection: false });
  const received: { event: string; data: unknown }[] = [];
  let wake: (() => void) | undefined;
  socket.onAny((event: string, data: unknown) => {
    received.push({ event, data });
    wake?.();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return {
    send: (event, data) => socket.emit(event, data),
    replies: (count) =>
      new Promise((resolve) => {
        wake = () => received.length >= count && resolve(received.splice(0, count));
        wake();
      }),
    connected: () => socket.connected,
    close: () => socket.close(),
  };
}

describe('odd value providers; a controller method that is both an HTTP route and a microservice handler', () => {
  let app: INestApplication | undefined;
  let client: ClientProxy | undefined;
  let bootError: unknown;
  beforeAll(async () => {
    @Module({
      imports: [RateLimitModule.forRoot({ redis: redis.url, keyPrefix: uniquePrefix('hhyb') })],
      controllers: [HybridController],
      // Odd value providers the scan must step over (@nestjs/graphql's own explorer throws on
      // a primitive one, so they live in this GraphQL-free application).
      providers: [
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: 'NUMBER', useValue: 5 },
        { provide: 'ARRAY', useValue: [1, 2] },
        { provide: 'NULL', useValue: null },
        { provide: 'BARE', useValue: Object.create(null) as object },
        { provide: 'FN', useFactory: () => () => 1 },
      ],
    })
    class HybridModule {}
    const port = await freePort();
    try {
      const moduleRef = await Test.createTestingModule({ imports: [HybridModule] }).compile();
      app = moduleRef.createNestApplication({ logger: false });
      app.connectMicroservice<MicroserviceOptions>(
        { transport: Transport.TCP, options: { host: '127.0.0.1', port } },
        { inheritAppConfig: true },
      );
      await app.init();
      await app.startAllMicroservices();
      client = ClientProxyFactory.create({
        transport: Transport.TCP,
        options: { host: '127.0.0.1', port },
      });
    } catch (error) {
      bootError = error;
    }
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it("key 'ip' (the default): the bootstrap refuses it, or the microservice call is answered", async () => {
    if (bootError) {
      expect(String(bootError)).toMatch(/HybridController\.hybrid/);
      return;
    }
    expect((await request(app!.getHttpServer()).get('/hybrid')).status).toBe(200);
    const outcome = await firstValueFrom(client!.send('hybrid', {})).then(
      (answer: unknown) => ({ answer }),
      (error: unknown) => ({ error }),
    );
    expect(outcome).toEqual({ answer: 'hybrid' });
  });
});
