/**
 * GraphQL, WebSocket and microservice limits as users run them: demo processes
 * (`node dist/apps/demo/main.js`) on one redis-server, bursts split across two of them. Express
 * with Apollo, socket.io and a TCP microservice; Fastify with Mercurius and the `ws` adapter.
 */
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import { request } from 'node:http';
import { firstValueFrom } from 'rxjs';
import { findFreePort as freePort } from '../../libs/rate-limit/test/support/processes/free-port';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../../libs/rate-limit/test/support/redis-test-server';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';
import {
  connectSocketIo,
  connectWs,
  type WsTestClient,
} from '../../libs/rate-limit/test/e2e/fixtures/ws-clients';
import { ADMIN_TOKEN, setPolicyOn } from '../support/demo-fleet';
import { type DemoProcess, startDemoProcess } from '../support/demo-process';

const BURST = 300;

let redis: TestRedis;
const processes: DemoProcess[] = [];
const sockets: WsTestClient[] = [];
const rpcClients: ClientProxy[] = [];

/** Two demo processes; with `microservices`, each also answers TCP on the port listed. */
async function pair(
  env: Record<string, string>,
  microservices: boolean,
): Promise<{ demos: DemoProcess[]; rpcPorts: number[] }> {
  const demos: DemoProcess[] = [];
  const rpcPorts: number[] = [];
  for (let i = 0; i < 2; i++) {
    const port = microservices ? await freePort() : undefined;
    if (port) rpcPorts.push(port);
    const rpc: Record<string, string> = port ? { MICROSERVICE_PORT: String(port) } : {};
    demos.push(
      await startDemoProcess({
        REDIS_URL: redis.url,
        TRUST_PROXY: 'loopback',
        ADMIN_TOKEN,
        ...env,
        ...rpc,
      }),
    );
    processes.push(demos[i]);
  }
  // The bursts below must land in one window wherever the clock is (the demo's are 10 s).
  const windowMs = windowWithoutBoundary();
  for (const name of ['demo.graphql-quote', ...(microservices ? ['demo.rpc-quote'] : [])]) {
    await setPolicyOn(demos, name, { windowMs });
  }
  return { demos, rpcPorts };
}

interface GraphqlAnswer {
  data?: { quote?: unknown } | null;
  errors?: { extensions?: { code?: string } }[];
}

/** POSTs a GraphQL query; resolves with the parsed answer. */
function graphql(demo: DemoProcess, ip: string, query: string): Promise<GraphqlAnswer> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query });
    const req = request(
      `${demo.url}/graphql`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text) as GraphqlAnswer));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  for (const socket of sockets) socket.close();
  for (const client of rpcClients) await client.close();
  await Promise.all(processes.map((demo) => demo.stop()));
  await redis?.close();
});

describe.each([
  ['express', 'apollo', 'socket.io'],
  ['fastify', 'mercurius', 'ws'],
] as const)('two %s processes (%s, %s) on one Redis', (platform, driver, adapter) => {
  let demos: DemoProcess[] = [];
  let rpcPorts: number[] = [];
  beforeAll(async () => {
    ({ demos, rpcPorts } = await pair(
      {
        HTTP_PLATFORM: platform,
        GRAPHQL_DRIVER: driver,
        WS_ADAPTER: adapter,
        RATE_LIMIT_KEY_PREFIX: uniquePrefix(`ctx-${platform}`),
      },
      platform === 'express',
    ));
  });

  it(`GraphQL: a burst of ${BURST} queries over both processes gets exactly 5 answers`, async () => {
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        graphql(demos[i % 2], '203.0.113.90', '{ quote(id: 1) { id } }'),
      ),
    );
    const codes = answers.map((a) => (a.data?.quote ? 'ok' : a.errors?.[0]?.extensions?.code));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(5);
    expect(codes.filter((c) => c === 'TOO_MANY_REQUESTS')).toHaveLength(BURST - 5);
  });

  it('WebSocket: 20 sockets over both processes, 10 messages each, share one address budget', async () => {
    const connect = (i: number) =>
      adapter === 'ws'
        ? connectWs(demos[i % 2].url)
        : connectSocketIo(demos[i % 2].url, '203.0.113.91');
    const clients = await Promise.all(Array.from({ length: 20 }, (_, i) => connect(i)));
    sockets.push(...clients);
    const started = Date.now();
    for (const client of clients) for (let m = 0; m < 10; m++) client.send('quote');
    const replies = (await Promise.all(clients.map((client) => client.replies(10)))).flat();
    const elapsed = Date.now() - started;
    const answered = replies.filter((reply) => reply.event === 'quote').length;
    // A token bucket of 5 refilling 5 per 10 s: one more token per 2 s the burst lasts.
    expect(answered).toBeGreaterThanOrEqual(5);
    expect(answered).toBeLessThanOrEqual(5 + Math.floor(elapsed / 2_000));
    const rejected = replies.filter((reply) => reply.event === 'exception');
    expect(rejected).toHaveLength(200 - answered);
    for (const reply of rejected) {
      expect(reply.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', policy: 'demo.ws-quote' });
    }
    console.log(`${adapter}: ${answered} of 200 messages answered in ${elapsed} ms`);
    for (const client of clients) expect(client.connected()).toBe(true);
  });

  if (platform === 'express') {
    it(`microservice: a burst of ${BURST} TCP messages for one tenant over both processes gets exactly 4 answers`, async () => {
      const clients = rpcPorts.map((port) =>
        ClientProxyFactory.create({
          transport: Transport.TCP,
          options: { host: '127.0.0.1', port },
        }),
      );
      rpcClients.push(...clients);
      const outcomes = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          firstValueFrom(clients[i % 2].send('quote', { tenant: 'acme' })).then(
            () => 'ok',
            (error: { code?: string }) => error.code,
          ),
        ),
      );
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(4);
      expect(outcomes.filter((o) => o === 'TOO_MANY_REQUESTS')).toHaveLength(BURST - 4);
    });
  }
});
