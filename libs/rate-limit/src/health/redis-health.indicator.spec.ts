import { HealthIndicatorService } from '@nestjs/terminus';
import type { RedisConnection } from '../store/redis/redis-connection';
import { RateLimitHealthIndicator } from './redis-health.indicator';

function indicatorWith(client: unknown): RateLimitHealthIndicator {
  return new RateLimitHealthIndicator(new HealthIndicatorService(), {
    client,
  } as unknown as RedisConnection);
}

describe('RateLimitHealthIndicator.pingCheck', () => {
  it('reports up with the PING latency in ms', async () => {
    const ping = jest.fn(async () => 'PONG');
    const result = await indicatorWith({ ping, status: 'ready' }).pingCheck('redis');
    expect(ping).toHaveBeenCalledTimes(1);
    expect(result).toEqual({
      redis: { status: 'up', store: 'redis', latencyMs: expect.any(Number) },
    });
    expect(result.redis.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('reports up with store: memory when no Redis is configured', async () => {
    await expect(indicatorWith(undefined).pingCheck('limiter')).resolves.toEqual({
      limiter: { status: 'up', store: 'memory' },
    });
  });

  it('reports down with the error message when PING fails (never throws)', async () => {
    const client = {
      status: 'reconnecting',
      ping: async () => {
        throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
      },
    };
    await expect(indicatorWith(client).pingCheck('redis')).resolves.toEqual({
      redis: {
        status: 'down',
        store: 'redis',
        message: "Stream isn't writeable and enableOfflineQueue options is false",
        connection: 'reconnecting',
      },
    });
  });

  it('reports down after the timeout when PING never answers', async () => {
    const client = { status: 'ready', ping: () => new Promise<string>(() => undefined) };
    const started = performance.now();
    const result = await indicatorWith(client).pingCheck('redis', { timeoutMs: 30 });
    expect(performance.now() - started).toBeLessThan(500);
    expect(result).toEqual({
      redis: {
        status: 'down',
        store: 'redis',
        message: 'Redis did not answer within 30 ms',
        connection: 'ready',
      },
    });
  });

  it('reports down for a synchronous throw or a non-Error rejection', async () => {
    const throwing = {
      status: 'end',
      ping: () => {
        throw new Error('Connection is closed.');
      },
    };
    await expect(indicatorWith(throwing).pingCheck('redis')).resolves.toMatchObject({
      redis: { status: 'down', message: 'Connection is closed.' },
    });
    const odd = { status: 'ready', ping: () => Promise.reject('boom') };
    await expect(indicatorWith(odd).pingCheck('redis')).resolves.toMatchObject({
      redis: { status: 'down', message: 'boom' },
    });
  });
});
