import Redis, { type RedisOptions } from 'ioredis';
import {
  type TestRedis,
  ownsTestRedis,
  startTestRedis,
  uniquePrefix,
} from './support/redis-test-server';

/**
 * A client that fails fast instead of retrying, so "unreachable" is observable. A short
 * disconnectTimeout matters: ioredis' disconnect() after a failed connection arms a ref'd timer
 * (2 s by default) that would keep the Jest worker alive past the end of the run.
 */
function connect(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: 2000,
    disconnectTimeout: 50,
    ...extra,
  });
}

/** QUIT when connected (a clean close), otherwise just drop the socket. */
async function release(client: Redis): Promise<void> {
  if (client.status === 'ready') await client.quit();
  else client.disconnect();
}

async function ping(url: string): Promise<string> {
  const client = connect(url);
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.ping();
  } finally {
    await release(client);
  }
}

describe('startTestRedis', () => {
  let redis: TestRedis;

  beforeAll(async () => {
    redis = await startTestRedis();
  });

  afterAll(async () => {
    await redis?.close();
  });

  it('starts a Redis that answers PING', async () => {
    expect(redis.url).toBe(process.env.REDIS_URL ?? `redis://${redis.host}:${redis.port}`);
    await expect(ping(redis.url)).resolves.toBe('PONG');
  });

  it('stores keys under a unique prefix', async () => {
    const prefix = uniquePrefix();
    expect(prefix).toMatch(/^rltest-[0-9a-f]{12}$/);
    expect(uniquePrefix()).not.toBe(prefix);
    const client = connect(redis.url);
    try {
      await client.connect();
      await client.set(`${prefix}:k`, 'v', 'PX', 10_000);
      await expect(client.get(`${prefix}:k`)).resolves.toBe('v');
      await client.del(`${prefix}:k`);
    } finally {
      await release(client);
    }
  });

  (ownsTestRedis() ? describe : describe.skip)('when the helper owns the server', () => {
    it('stop() makes it unreachable and restart() brings it back on the same port', async () => {
      const { port, url } = redis;
      await redis.stop();
      await expect(ping(url)).rejects.toThrow(/ECONNREFUSED|Connection is closed/);

      await redis.restart();
      expect(redis.port).toBe(port);
      await expect(ping(url)).resolves.toBe('PONG');
    });

    it('pause() freezes the server and resume() thaws it', async () => {
      const client = connect(redis.url);
      const probe = connect(redis.url, { commandTimeout: 300 });
      try {
        await Promise.all([client.connect(), probe.connect()]);
        await redis.pause();
        const pending = client.ping();
        // The connection stays open but nothing answers while the server is frozen.
        await expect(probe.ping()).rejects.toThrow(/timed out/i);
        await redis.resume();
        await expect(pending).resolves.toBe('PONG');
      } finally {
        await Promise.all([release(client), release(probe)]);
      }
    });

    it('kill() ends the server and restart() recovers from it', async () => {
      await redis.kill('SIGKILL');
      await expect(ping(redis.url)).rejects.toThrow();
      await redis.restart();
      await expect(ping(redis.url)).resolves.toBe('PONG');
    });
  });
});
