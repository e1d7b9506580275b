/**
 * Hostile WebSocket traffic against a fixture app's gateway on socket.io and on `ws`, one
 * listening instance on a real Redis: a flood of 5,000 messages on one socket, odd frames and unknown
 * events. The limit must answer exactly its budget, and the socket must stay open and served.
 */
import type { INestApplication } from '@nestjs/common';
import WebSocket from 'ws';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import { createFixtureApp, PATIENT_TIMEOUT_MS } from '../fixtures/fixture-app';
import { QuotesGateway } from '../fixtures/quotes-messages';
import { connectSocketIo, connectWs, type WsTestClient } from '../fixtures/ws-clients';

const FLOOD = 5_000;

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

describe.each(['socket.io', 'ws'] as const)('hostile WebSocket traffic on %s', (adapter) => {
  let app: INestApplication;
  let url: string;
  const clients: WsTestClient[] = [];
  beforeAll(async () => {
    app = await createFixtureApp({
      limiter: {
        redis: redis.url,
        keyPrefix: uniquePrefix(`hws-${adapter}`),
        commandTimeoutMs: PATIENT_TIMEOUT_MS,
        trustProxy: 'loopback',
      },
      providers: [QuotesGateway],
      wsAdapter: adapter,
    });
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await app?.close();
  });
  const connect = async (): Promise<WsTestClient> => {
    const client =
      adapter === 'ws' ? await connectWs(url) : await connectSocketIo(url, '198.51.100.77');
    clients.push(client);
    return client;
  };

  it(`a flood of ${FLOOD} echoes on one socket: exactly 3 answered, the rest rejected, the socket open`, async () => {
    const client = await connect();
    for (let i = 0; i < FLOOD; i++) client.send('echo', { n: i });
    const replies = await client.replies(FLOOD);
    expect(replies.filter((reply) => reply.event === 'echo')).toHaveLength(3);
    const rejected = replies.filter((reply) => reply.event === 'exception');
    expect(rejected).toHaveLength(FLOOD - 3);
    for (const reply of rejected) {
      expect(reply.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', policy: 'fx.ws-echo' });
    }
    expect(client.connected()).toBe(true);
    // Still served by a handler with budget left.
    client.send('quote');
    expect((await client.replies(1))[0].event).toBe('quote');
  });

  it('odd payloads are echoed or rejected like any other, per connection', async () => {
    const client = await connect();
    const payloads: unknown[] = [null, 'x'.repeat(100_000), [1, [2, [3]]], { __proto__: { a: 1 } }];
    for (const payload of payloads) client.send('echo', payload);
    const replies = await client.replies(payloads.length);
    expect(replies.filter((reply) => reply.event === 'echo')).toHaveLength(3);
    expect(replies.filter((reply) => reply.event === 'exception')).toHaveLength(1);
    expect(client.connected()).toBe(true);
  });

  if (adapter === 'ws') {
    it('garbage frames and unknown events neither close the socket nor spend its budget', async () => {
      const raw = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`);
      const replies: { event: string }[] = [];
      let wake: (() => void) | undefined;
      raw.on('message', (data) => {
        replies.push(JSON.parse(String(data)) as { event: string });
        wake?.();
      });
      await new Promise<void>((resolve, reject) => {
        raw.once('open', () => resolve());
        raw.once('error', reject);
      });
      try {
        for (const frame of [
          'not json',
          '{"event":"nope"}',
          '{"event":"__proto__"}',
          '[]',
          'null',
        ]) {
          raw.send(frame);
        }
        for (let i = 0; i < 3; i++) raw.send(JSON.stringify({ event: 'echo', data: i }));
        await new Promise<void>((resolve) => {
          wake = () => replies.length >= 3 && resolve();
          wake();
        });
        expect(replies.map((reply) => reply.event)).toEqual(['echo', 'echo', 'echo']);
        expect(raw.readyState).toBe(WebSocket.OPEN);
      } finally {
        raw.close();
      }
    });
  }
});
