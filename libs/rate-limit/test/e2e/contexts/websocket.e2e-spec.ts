/**
 * WebSocket gateway messages limited like routes, on socket.io and on the plain `ws` adapter:
 * two listening instances of a fixture app on one real Redis. A rejection is an `exception` event carrying
 * { status, code, statusCode, message, policy, retryAfter }, and the socket stays open.
 */
import type { INestApplication } from '@nestjs/common';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { createFixtureApp, type FixtureApp, PATIENT_TIMEOUT_MS } from '../fixtures/fixture-app';
import { QuotesGateway } from '../fixtures/quotes-messages';
import {
  connectSocketIo,
  connectWs,
  type WsReply,
  type WsTestClient,
} from '../fixtures/ws-clients';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

function expectRejection(reply: WsReply, policy: string): void {
  expect(reply.event).toBe('exception');
  expect(reply.data).toEqual({
    status: 'error',
    code: 'TOO_MANY_REQUESTS',
    statusCode: 429,
    message: 'Too Many Requests',
    policy,
    retryAfter: expect.any(Number) as number,
  });
  expect((reply.data as { retryAfter: number }).retryAfter).toBeGreaterThanOrEqual(1);
}

describe.each(['socket.io', 'ws'] as const)('WebSocket gateway on %s, two instances', (adapter) => {
  let apps: INestApplication[] = [];
  let urls: string[] = [];
  const clients: WsTestClient[] = [];
  const connect = async (i: number, ip: string): Promise<WsTestClient> => {
    const client =
      adapter === 'ws' ? await connectWs(urls[i % 2]) : await connectSocketIo(urls[i % 2], ip);
    clients.push(client);
    return client;
  };

  // A fresh key prefix per test: the ws adapter's clients all share 127.0.0.1.
  beforeEach(async () => {
    const fixture: FixtureApp = {
      limiter: {
        redis: redis.url,
        keyPrefix: uniquePrefix(`ws-${adapter}`),
        commandTimeoutMs: PATIENT_TIMEOUT_MS,
        trustProxy: 'loopback',
      },
      providers: [QuotesGateway],
      wsAdapter: adapter,
    };
    apps = [await createFixtureApp(fixture), await createFixtureApp(fixture)];
    for (const app of apps) await app.listen(0, '127.0.0.1');
    urls = await Promise.all(apps.map((app) => app.getUrl()));
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await Promise.all(apps.map((app) => app.close()));
  });

  it("per connection: each socket's 4th and 5th echo are rejected, and the socket stays open", async () => {
    const [first, second] = [await connect(0, '198.51.100.1'), await connect(1, '198.51.100.1')];
    for (const client of [first, second]) {
      for (let i = 0; i < 5; i++) client.send('echo', { n: i });
    }
    for (const client of [first, second]) {
      // Messages are handled concurrently: which three pass is not fixed, how many is.
      const replies = await client.replies(5);
      const echoed = replies.filter((reply) => reply.event === 'echo');
      expect(echoed).toHaveLength(3);
      for (const reply of echoed) expect(reply.data).toEqual({ n: expect.any(Number) as number });
      expect(new Set(echoed.map((reply) => (reply.data as { n: number }).n)).size).toBe(3);
      const rejected = replies.filter((reply) => reply.event !== 'echo');
      expect(rejected).toHaveLength(2);
      for (const reply of rejected) expectRejection(reply, 'fx.ws-echo');
      expect(client.connected()).toBe(true);
    }
    // Still open and served: once the window passes (not waited for here), or at once by a
    // handler that has budget left.
    first.send('quote');
    expect((await first.replies(1))[0].event).toBe('quote');
  });

  it('per client address: a burst of 12 over sockets on both instances gets exactly 5 answers', async () => {
    // The ws adapter keeps no handshake headers: its clients are all 127.0.0.1, fresh under
    // this test's key prefix. socket.io reads the forwarded address (TRUST_PROXY=loopback).
    const sockets = await Promise.all([0, 1, 2, 3].map((i) => connect(i, '198.51.100.2')));
    for (let i = 0; i < 12; i++) sockets[i % 4].send('quote');
    const replies = (await Promise.all(sockets.map((s) => s.replies(3)))).flat();
    const answered = replies.filter((reply) => reply.event === 'quote');
    expect(answered).toHaveLength(5);
    const rejected = replies.filter((reply) => reply.event !== 'quote');
    expect(rejected).toHaveLength(7);
    for (const reply of rejected) expectRejection(reply, 'fx.ws-quote');
    for (const socket of sockets) expect(socket.connected()).toBe(true);
  });
});
