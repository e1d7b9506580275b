/**
 * Hostile GraphQL input against a fixture app's limited resolvers (Apollo on the suite's platform,
 * Mercurius on Fastify), one instance on a real Redis: aliases that call one limited resolver
 * many times in one HTTP request, batched bodies, introspection, and what a rejected request's
 * HTTP answer looks like.
 */
import type { INestApplication } from '@nestjs/common';
import request, { type Response } from 'supertest';
import { startTestRedis, uniquePrefix, type TestRedis } from '../../support/redis-test-server';
import {
  createFixtureApp,
  E2E_PLATFORM,
  type HttpPlatform,
  PATIENT_TIMEOUT_MS,
} from '../fixtures/fixture-app';
import { graphqlFixture, type GraphqlDriverName } from '../fixtures/quotes-graphql';

interface GraphqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

const DRIVERS: [GraphqlDriverName, HttpPlatform][] = [
  ['apollo', E2E_PLATFORM],
  ['mercurius', 'fastify'],
];

describe.each(DRIVERS)('hostile GraphQL on %s (%s)', (driver, platform) => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createFixtureApp({
      limiter: {
        redis: redis.url,
        keyPrefix: uniquePrefix(`hgql-${driver}`),
        commandTimeoutMs: PATIENT_TIMEOUT_MS,
        trustProxy: 'loopback',
      },
      imports: [graphqlFixture(driver)],
      platform,
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (ip: string, body: unknown): Promise<Response> =>
    request(app.getHttpServer())
      .post('/graphql')
      .set('X-Forwarded-For', ip)
      .set('Content-Type', 'application/json')
      .send(body as object);

  const codes = (body: GraphqlBody): unknown[] =>
    (body.errors ?? []).map((error) => error.extensions?.code);

  it('50 aliases of a limited query in one request: each counts, exactly 5 are admitted', async () => {
    const ip = '203.0.113.171';
    const aliases = Array.from({ length: 50 }, (_, i) => `a${i}: quote(id: ${i}) { id }`);
    const res = await post(ip, { query: `{ ${aliases.join(' ')} }` });
    const body = res.body as GraphqlBody;
    const rejected = codes(body).filter((code) => code === 'TOO_MANY_REQUESTS');
    // Whatever the driver shows of the 45 rejections, the budget must be spent: the next
    // single query from this client is rejected.
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    const next = await post(ip, { query: '{ quote(id: 1) { id } }' });
    expect(codes(next.body as GraphqlBody)).toEqual(['TOO_MANY_REQUESTS']);
    expect(res.headers['ratelimit-remaining']).toBe('0');
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('a rejected operation is an HTTP 200 with the GraphQL error (not a 4xx/5xx)', async () => {
    const ip = '203.0.113.172';
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await post(ip, { query: 'mutation { like }' })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('README: "the field is null, the rest of the answer stays" for a rejected root query', async () => {
    const ip = '203.0.113.173';
    // 5 admitted quotes, then one more beside an unlimited-by-this-policy mutation-free field.
    const query = Array.from({ length: 6 }, (_, i) => `q${i}: quote(id: ${i}) { id }`).join(' ');
    const body = (await post(ip, { query: `{ ${query} }` })).body as GraphqlBody;
    expect(codes(body)).toEqual(['TOO_MANY_REQUESTS']);
    // Five quotes were admitted and paid for: the client should get them.
    expect(body.data).not.toBeNull();
    const answered = Object.values(body.data ?? {}).filter((value) => value !== null);
    expect(answered).toHaveLength(5);
  });

  it('a batched body (array of 10 operations) never gets more than the limit answered', async () => {
    const ip = '203.0.113.174';
    const batch = Array.from({ length: 10 }, (_, i) => ({ query: `{ quote(id: ${i}) { id } }` }));
    const res = await post(ip, batch);
    const answers = Array.isArray(res.body)
      ? (res.body as GraphqlBody[])
      : [res.body as GraphqlBody];
    const answered = answers.filter((a) => a.data?.quote).length;
    expect(answered).toBeLessThanOrEqual(5);
  });

  it('introspection is not limited and does not spend the query budget', async () => {
    const ip = '203.0.113.175';
    for (let i = 0; i < 8; i++) {
      const res = await post(ip, { query: '{ __schema { queryType { name } } }' });
      expect((res.body as GraphqlBody).errors).toBeUndefined();
    }
    const res = await post(ip, { query: '{ quote(id: 1) { id } }' });
    expect((res.body as GraphqlBody).data?.quote).toEqual({ id: 1 });
    expect(res.headers['ratelimit-remaining']).toBe('4');
  });

  it('variables and a named operation among several in one document count once', async () => {
    const ip = '203.0.113.176';
    const query =
      'query Q($id: Int!) { quote(id: $id) { id } } mutation M { like } query R { quote(id: 2) { id } }';
    const res = await post(ip, { query, variables: { id: 7 }, operationName: 'Q' });
    expect((res.body as GraphqlBody).data?.quote).toEqual({ id: 7 });
    expect(res.headers['ratelimit-remaining']).toBe('4');
  });
});
