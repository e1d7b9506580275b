import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { startTestCluster, type TestCluster } from '../libs/rate-limit/test/support/redis-cluster';
import { uniquePrefix } from '../libs/rate-limit/test/support/redis-test-server';
import {
  startTestSentinel,
  type TestSentinel,
} from '../libs/rate-limit/test/support/redis-sentinel';
import { createDemoApp } from './support/create-demo-app';
import { demoWindowsWithoutBoundary } from './support/demo-windows';

const ADMIN_TOKEN = 'topologies-admin-token-0123456789abcdef';

/**
 * The demo selects Redis Cluster and Sentinel from its environment, and two instances on either
 * share the limits. The policies a test bursts on get a window without a boundary within the
 * hour (admin API) first: their own 10 s windows could end mid-burst and admit the client again.
 * (A Redis killed mid-burst is the library's: libs/rate-limit/test/e2e/redis-down/.)
 */
async function alternate(
  a: INestApplication,
  b: INestApplication,
  path: string,
  ip: string,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) {
    statuses.push(
      (
        await request((i % 2 ? b : a).getHttpServer())
          .get(path)
          .set('X-Forwarded-For', ip)
      ).status,
    );
  }
  return statuses;
}

describe('demo on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  let cluster: TestCluster;
  let a: INestApplication;
  let b: INestApplication;

  beforeAll(async () => {
    cluster = await startTestCluster({ masters: 3, replicasPerMaster: 0 });
    const env = {
      REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','),
      RATE_LIMIT_KEY_PREFIX: uniquePrefix(),
      TRUST_PROXY: 'loopback',
      ADMIN_TOKEN,
    };
    [a, b] = await Promise.all([createDemoApp(env), createDemoApp(env)]);
    await demoWindowsWithoutBoundary([a, b], ADMIN_TOKEN, [
      'demo.sliding-window',
      'demo.gcra',
      'demo.stacked-client',
      'demo.stacked-route',
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await cluster?.close();
  });

  it.each(['sliding-window', 'gcra'])(
    '/api/%s: 5 x 200 then 429 across two instances',
    async (algo) => {
      expect(await alternate(a, b, `/api/${algo}`, '198.51.100.20')).toEqual([
        200, 200, 200, 200, 200, 429, 429, 429,
      ]);
    },
  );

  it('stacked policies of one identity need no cross-slot command', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (
          await request(a.getHttpServer())
            .get('/api/stacked')
            .set('X-Forwarded-For', '198.51.100.21')
        ).status,
      );
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('demo on Redis Sentinel (REDIS_SENTINELS)', () => {
  let sentinel: TestSentinel;
  let a: INestApplication;
  let b: INestApplication;

  beforeAll(async () => {
    sentinel = await startTestSentinel();
    const env = {
      REDIS_SENTINELS: sentinel.sentinels.map((n) => `${n.host}:${n.port}`).join(','),
      REDIS_SENTINEL_NAME: sentinel.name,
      RATE_LIMIT_KEY_PREFIX: uniquePrefix(),
      TRUST_PROXY: 'loopback',
      ADMIN_TOKEN,
    };
    [a, b] = await Promise.all([createDemoApp(env), createDemoApp(env)]);
    await demoWindowsWithoutBoundary([a, b], ADMIN_TOKEN, ['demo.token-bucket']);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await sentinel?.close();
  });

  it('/api/token-bucket: 5 x 200 then 429 across two instances', async () => {
    expect(await alternate(a, b, '/api/token-bucket', '198.51.100.22')).toEqual([
      200, 200, 200, 200, 200, 429, 429, 429,
    ]);
  });
});
