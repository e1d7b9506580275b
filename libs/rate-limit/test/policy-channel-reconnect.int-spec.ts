import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RedisPolicyChannel } from '../src/backends/redis/redis-policy-channel';
import { LIMITER_CLIENT_DEFAULTS } from '../src/store/redis/create-redis-client';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { UnhandledRejections } from './e2e/fixtures/unhandled-rejections';
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
  let unhandled: UnhandledRejections;

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
    unhandled = new UnhandledRejections();
    unhandled.install();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    unhandled.uninstall();
    await channel.close();
    client.disconnect();
    await proxy.close();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('resubscribes: an announcement after the drop reaches it', async () => {
    // Listening after the channel did: its SUBSCRIBE is sent when this runs, and a PING sent
    // then is answered after it.
    const resubscribed = new Promise((resolve) => subscriber.once('ready', resolve));
    proxy.dropConnections();
    await resubscribed;
    await subscriber.ping();
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    const received = new Promise<string>((resolve) => channel.onReset((name) => resolve(name)));
    await channel.announceReset('p', ['t']);
    expect(await received).toBe('p');
  });

  it('closing while the resubscription waits on a stalled Redis rejects nothing unhandled', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const held = proxy.holdFrom(/subscribe/i);
    proxy.dropConnections();
    await held;
    const ended = new Promise((resolve) => subscriber.once('end', resolve));
    await channel.close();
    await ended;
    // A rejection is reported unhandled once the microtasks after it have run: a macrotask later.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled.describe()).toEqual([]);
    // Nor a warning: a resubscription a shutdown cuts short is no failure.
    expect(warn).not.toHaveBeenCalled();
  });

  it('a resubscription Redis refuses is logged, not dropped in silence', async () => {
    const warned = new Promise<string>((resolve) =>
      jest.spyOn(Logger.prototype, 'warn').mockImplementation((message) => resolve(`${message}`)),
    );
    const refused = proxy.answerInstead(/subscribe/i, '-ERR refused by the test\r\n');
    proxy.dropConnections();
    await refused;
    expect(await warned).toContain('Could not subscribe again');
    expect(await warned).toContain('ERR refused by the test');
  });
});
