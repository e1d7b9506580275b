/**
 * Microservice handlers limited like routes: two instances of a fixture app, each a hybrid app
 * answering TCP messages, on one real Redis. The identity is a function of the payload (its tenant); a
 * rejection is an RpcException the caller's observable errors with.
 */
import type { INestApplication } from '@nestjs/common';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';
import { findFreePort as freePort } from '../../support/processes/free-port';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { createFixtureApp, PATIENT_TIMEOUT_MS } from '../fixtures/fixture-app';
import { QuotesRpcController } from '../fixtures/quotes-messages';

let redis: TestRedis;
const apps: INestApplication[] = [];
const clients: ClientProxy[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  const prefix = uniquePrefix('rpc');
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const app = await createFixtureApp({
      limiter: { redis: redis.url, keyPrefix: prefix, commandTimeoutMs: PATIENT_TIMEOUT_MS },
      controllers: [QuotesRpcController],
      microservicePort: port,
    });
    await app.startAllMicroservices();
    apps.push(app);
    clients.push(
      ClientProxyFactory.create({ transport: Transport.TCP, options: { host: '127.0.0.1', port } }),
    );
  }
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await Promise.all(apps.map((app) => app.close()));
  await redis?.close();
});

type Outcome = { answer: unknown } | { error: unknown };

const ask = (i: number, payload: unknown): Promise<Outcome> =>
  firstValueFrom(clients[i % 2].send('quote', payload)).then(
    (answer: unknown) => ({ answer }),
    (error: unknown) => ({ error }),
  );

describe('TCP microservice, two instances on one Redis: 4 per tenant', () => {
  it('a concurrent burst of 10 for one tenant over both instances gets exactly 4 answers', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => ask(i, { tenant: 'acme' })),
    );
    const answers = outcomes.filter((o): o is { answer: unknown } => 'answer' in o);
    expect(answers).toHaveLength(4);
    for (const { answer } of answers) {
      expect(answer).toEqual({ tenant: 'acme', text: 'Less, but better.' });
    }
    const errors = outcomes.filter((o): o is { error: unknown } => 'error' in o);
    expect(errors).toHaveLength(6);
    for (const { error } of errors) {
      expect(error).toEqual({
        code: 'TOO_MANY_REQUESTS',
        statusCode: 429,
        message: 'Too Many Requests',
        policy: 'fx.rpc-quote',
        retryAfter: expect.any(Number) as number,
      });
      expect((error as { retryAfter: number }).retryAfter).toBeGreaterThanOrEqual(1);
    }
    // Another tenant has its own budget, on either instance.
    expect(await ask(0, { tenant: 'globex' })).toEqual({
      answer: { tenant: 'globex', text: 'Less, but better.' },
    });
    expect(await ask(1, { tenant: 'globex' })).toEqual({
      answer: { tenant: 'globex', text: 'Less, but better.' },
    });
  });
});
