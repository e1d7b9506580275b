import { ConsoleLogger, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { startTestRedis, uniquePrefix, type TestRedis } from '../support/redis-test-server';
import { createFixtureApp } from './fixtures/fixture-app';
import { algorithmsController } from './fixtures/limited-controller';

/** Everything the app logs, as text. */
class CapturingLogger extends ConsoleLogger {
  readonly lines: string[] = [];
  protected override printMessages(messages: unknown[], context = '', level = 'log'): void {
    this.lines.push(
      `${level} ${context} ${messages.map((m) => (m instanceof Error ? `${m.message} ${m.stack}` : JSON.stringify(m))).join(' ')}`,
    );
  }
}

describe('the admin token stays out of the logs', () => {
  const TOKEN = 'tok-6a1f0c9e2b7d44c1a8f3-5e0b9d2c7a41';
  let redis: TestRedis;
  let app: INestApplication;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    redis = await startTestRedis();
    app = await createFixtureApp({
      limiter: { redis: redis.url, keyPrefix: uniquePrefix() },
      controllers: [algorithmsController('api', { limit: 5, window: '10s' }, ['gcra'])],
      admin: { token: TOKEN },
      logger,
    });
  });
  afterAll(async () => {
    await app.close();
    await redis.close();
  });

  it('is never printed at boot, on wrong or right tokens, on errors or on shutdown', async () => {
    const server = app.getHttpServer();
    await request(server)
      .get('/admin/policies')
      .set('Authorization', `Bearer ${TOKEN}x`)
      .expect(401);
    await request(server)
      .get('/admin/policies')
      .set('Authorization', `Bearer ${TOKEN.slice(0, 10)}`)
      .expect(401);
    await request(server)
      .get('/admin/policies')
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(200);
    await request(server)
      .patch('/admin/policies/api.gcra')
      .set('Authorization', `Bearer ${TOKEN}`)
      .send({ limit: -1 })
      .expect(400);
    await request(server)
      .get('/admin/policies/nope')
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(404);
    await redis.stop();
    await request(server).get('/admin/policies').set('Authorization', `Bearer ${TOKEN}`);
    await redis.restart();
    expect(logger.lines.length).toBeGreaterThan(5); // the logger really captured the app's output
    expect(logger.lines.filter((line) => line.includes(TOKEN.slice(4)))).toEqual([]);
  });
});
