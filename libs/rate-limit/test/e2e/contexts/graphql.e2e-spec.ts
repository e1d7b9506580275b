/**
 * GraphQL resolvers limited like routes: Apollo on the suite's platform (Express, or Fastify in
 * the e2e-fastify project) and Mercurius on Fastify, each as two instances of a fixture app on one real
 * Redis. A rejection is a GraphQL error carrying extensions { code, retryAfter, policy }, and the
 * rate-limit headers are on the HTTP response.
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

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

interface GraphqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
}

const DRIVERS: [GraphqlDriverName, string, HttpPlatform][] = [
  ['apollo', `Apollo on ${E2E_PLATFORM}`, E2E_PLATFORM],
  ['mercurius', 'Mercurius on fastify', 'fastify'],
];

describe.each(DRIVERS)(
  'GraphQL (%s): %s, two instances on one Redis',
  (driver, _label, platform) => {
    let apps: INestApplication[] = [];
    beforeAll(async () => {
      const fixture = {
        limiter: {
          redis: redis.url,
          keyPrefix: uniquePrefix(`gql-${driver}`),
          commandTimeoutMs: PATIENT_TIMEOUT_MS,
          trustProxy: 'loopback',
        },
        imports: [graphqlFixture(driver)],
        platform,
      } as const;
      apps = [await createFixtureApp(fixture), await createFixtureApp(fixture)];
    });
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.close()));
    });

    const post = (i: number, ip: string, query: string): Promise<Response> =>
      request(apps[i % 2].getHttpServer())
        .post('/graphql')
        .set('X-Forwarded-For', ip)
        .set('Content-Type', 'application/json')
        .send({ query });

    function expectRejection(res: Response, policy: string, path: string[]): void {
      const body = res.body as GraphqlBody;
      expect(body.errors).toHaveLength(1);
      const [error] = body.errors!;
      expect(error.path).toEqual(path);
      expect(error.extensions).toMatchObject({
        code: 'TOO_MANY_REQUESTS',
        policy,
        statusCode: 429,
      });
      const retryAfter = error.extensions!.retryAfter;
      expect(Number.isInteger(retryAfter) && (retryAfter as number) >= 1).toBe(true);
      expect(res.headers['retry-after']).toBe(String(retryAfter));
      expect(res.headers['ratelimit-remaining']).toBe('0');
    }

    it('query: a concurrent burst of 12 over both instances gets exactly 5 answers', async () => {
      const ip = '203.0.113.61';
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => post(i, ip, '{ quote(id: 1) { id text } }')),
      );
      const answered = responses.filter((r) => (r.body as GraphqlBody).data?.quote);
      expect(answered).toHaveLength(5);
      for (const res of answered) {
        expect(res.headers['ratelimit-limit']).toBe('5');
        expect((res.body as GraphqlBody).errors).toBeUndefined();
      }
      const rejected = responses.filter((r) => !(r.body as GraphqlBody).data?.quote);
      expect(rejected).toHaveLength(7);
      for (const res of rejected) expectRejection(res, 'fx.graphql-quote', ['quote']);
    });

    it('mutation: 3 of 6 sequential likes pass, alternating instances', async () => {
      const ip = '203.0.113.62';
      const results: boolean[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await post(i, ip, 'mutation { like }');
        const liked = typeof (res.body as GraphqlBody).data?.like === 'number';
        if (!liked) expectRejection(res, 'fx.graphql-like', ['like']);
        results.push(liked);
      }
      expect(results).toEqual([true, true, true, false, false, false]);
    });

    it('field resolver: its own limit (2) nulls the field, the rest of the answer stays', async () => {
      const ip = '203.0.113.63';
      const translations: (string | null)[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await post(i, ip, '{ quote(id: 2) { text translation } }');
        const quote = (res.body as GraphqlBody).data?.quote as {
          text: string;
          translation: string | null;
        };
        expect(quote.text).toBe('Less, but better.');
        if (quote.translation === null)
          expectRejection(res, 'fx.graphql-translation', ['quote', 'translation']);
        translations.push(quote.translation);
      }
      expect(translations).toEqual(['.retteb tub ,sseL', '.retteb tub ,sseL', null, null]);
    });
  },
);
