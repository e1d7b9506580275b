/**
 * Apollo on Fastify with its default context holds the request but not the reply: the limit
 * still applies (GraphQL errors), no headers can be written, and the library says once how to
 * pass the reply instead of staying silent.
 */
import { Logger, Module, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule, Query, Resolver } from '@nestjs/graphql';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RateLimit, RateLimitGuard, RateLimitModule } from '@app/rate-limit';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { windowWithoutBoundary } from '../../support/window-headroom';

/** Fixed windows that do not end during a test (a new one would admit a client again). */
const WINDOW = windowWithoutBoundary();

@Resolver()
class PingResolver {
  @Query(() => String)
  @RateLimit({ name: 'ping', limit: 1, window: WINDOW })
  ping(): string {
    return 'pong';
  }
}

let redis: TestRedis;
let app: INestApplication;
const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

beforeAll(async () => {
  redis = await startTestRedis();
  @Module({
    imports: [
      RateLimitModule.forRoot({ redis: redis.url, keyPrefix: uniquePrefix('gql-noreply') }),
      GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, autoSchemaFile: true }),
    ],
    providers: [PingResolver, { provide: APP_GUARD, useClass: RateLimitGuard }],
  })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  app = moduleRef.createNestApplication(new FastifyAdapter(), { logger: false });
  await app.init();
  await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
});

afterAll(async () => {
  await app?.close();
  await redis?.close();
  warn.mockRestore();
});

it('limits, sends no headers, and warns once how to pass the reply', async () => {
  const answers = [];
  for (let i = 0; i < 3; i++) {
    answers.push(await request(app.getHttpServer()).post('/graphql').send({ query: '{ ping }' }));
  }
  const bodies = answers.map(
    (res) =>
      res.body as {
        data?: { ping?: string } | null;
        errors?: { extensions?: { code?: string } }[];
      },
  );
  expect(bodies.map((body) => body.data?.ping ?? body.errors?.[0]?.extensions?.code)).toEqual([
    'pong',
    'TOO_MANY_REQUESTS',
    'TOO_MANY_REQUESTS',
  ]);
  for (const res of answers) expect(res.headers['ratelimit-limit']).toBeUndefined();
  const about = warn.mock.calls.filter(([message]) =>
    String(message).includes('context: (req, reply)'),
  );
  expect(about).toHaveLength(1);
});
