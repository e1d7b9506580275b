import { Redis } from 'ioredis';
import { RedisPolicyChannel } from '../src/backends/redis/redis-policy-channel';
import { LIMITER_CLIENT_DEFAULTS } from '../src/store/redis/create-redis-client';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { within } from './support/within';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

/**
 * The policy channel's subscriber across a dropped connection. ioredis resubscribes a
 * reconnected subscriber with a promise nobody handles: an application closing while that
 * SUBSCRIBE waits for a stalled Redis got an unhandled rejection ("Connection is closed.") out
 * of the library, which Node turns into a crash and Jest into a failure of whatever test ran.
 */
describe('RedisPolicyChannel after a dropped connection', () => {
  let server: TestRedis;
  let proxy: TcpProxy;
  let client: Redis;
  let channel: RedisPolicyChannel;
  /** The channel's own connection, as it makes it (a duplicate of the client's). */
  let subscriber: Redis;
  const unhandled: unknown[] = [];
  const noteUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeEach(async () => {
    server ??= await startTestRedis();
    proxy = await startTcpProxy(server.port);
    client = new Redis(proxy.url, LIMITER_CLIENT_DEFAULTS);
    client.on('error', () => undefined);
    const duplicate = client.duplicate.bind(client);
    client.duplicate = ((...args: Parameters<Redis['duplicate']>) =>
      (subscriber = duplicate(...args))) as Redis['duplicate'];
    channel = new RedisPolicyChannel(client, uniquePrefix('channel'));
    await channel.subscribe(2_000);
    unhandled.length = 0;
    process.on('unhandledRejection', noteUnhandled);
  });
  afterEach(async () => {
    process.off('unhandledRejection', noteUnhandled);
    await channel.close();
    client.disconnect();
    await proxy.close();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('resubscribes: an announcement after the drop reaches it', async () => {
    proxy.dropConnections();
    const received: string[] = [];
    channel.onReset((name) => received.push(name));
    // Both connections come back on their own time, and a SUBSCRIBE's reply is no event:
    // announce until one arrives (the reconnects take 50-100 ms of backoff).
    await within(5_000, async () => {
      if (client.status !== 'ready') return false;
      await channel.announceReset('p', ['t']);
      return received.length > 0;
    });
    expect(received[0]).toBe('p');
  });

  it('closing while the resubscription waits on a stalled Redis rejects nothing unhandled', async () => {
    const held = proxy.holdFrom(/subscribe/i);
    proxy.dropConnections();
    await held;
    const ended = new Promise((resolve) => subscriber.once('end', resolve));
    await channel.close();
    await ended;
    // A rejection is reported unhandled once the microtasks after it have run: a macrotask later.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled.map((reason) => (reason as Error).message)).toEqual([]);
  });
});
