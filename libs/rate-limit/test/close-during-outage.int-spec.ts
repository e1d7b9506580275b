import { Redis } from 'ioredis';
import { RedisPolicyChannel } from '../src/backends/redis/redis-policy-channel';
import { closeClient } from '../src/store/redis/close-client';
import { createRedisClient } from '../src/store/redis/create-redis-client';
import type { RedisClient } from '../src/store/redis/redis-script';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';
import { timeWithStalls } from './support/stall-meter';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

/** What an application waits for after closing: a little longer than DISCONNECT_WAIT_MS. */
const RELEASED_WITHIN_MS = 1_000;

/**
 * Closing the limiter's clients while Redis is unreachable. ioredis's disconnect arms a timer
 * that holds the process until the socket closes; a client whose socket had already closed
 * (reconnecting) never cleared it, so the application outlived its close by ioredis's
 * `disconnectTimeout` (2 s by default) whatever it did.
 */
describe('closing a client during an outage', () => {
  let server: TestRedis;
  let proxy: TcpProxy;

  beforeAll(async () => {
    server = await startTestRedis();
  });
  beforeEach(async () => {
    proxy = await startTcpProxy(server.port);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await proxy.close();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the limiter’s own client holds the process for no longer than a moment', async () => {
    const { client } = createRedisClient(proxy.url);
    client.on('error', () => undefined);
    await ready(client);
    await outage(client);
    const timers = holdingTimers();
    await closeClient(client);
    await released(timers);
  });

  it('the policy channel’s subscriber does not either, on an application’s own client', async () => {
    // Made as an application would, with ioredis's defaults: the channel's duplicate is the
    // limiter's to close.
    const client = new Redis(proxy.url);
    client.on('error', () => undefined);
    let subscriber: Redis | undefined;
    const duplicate = client.duplicate.bind(client);
    client.duplicate = ((...args: Parameters<Redis['duplicate']>) =>
      (subscriber = duplicate(...args))) as Redis['duplicate'];
    const channel = new RedisPolicyChannel(client, uniquePrefix('close'));
    await channel.subscribe(2_000);
    // The application's client is the application's to close: before the outage, at once.
    await client.quit();
    await outage(subscriber!);
    const timers = holdingTimers();
    await channel.close();
    await released(timers);
  });

  function ready(client: RedisClient): Promise<unknown> {
    if (client.status === 'ready') return Promise.resolve();
    return new Promise((resolve) => client.once('ready', resolve));
  }

  /** Redis out of reach: the proxy refuses connections and drops the client's. */
  async function outage(client: RedisClient): Promise<void> {
    const reconnecting = new Promise((resolve) => client.once('reconnecting', resolve));
    await proxy.close();
    await reconnecting;
  }

  /** A timer armed from now on, and when it fires or is cleared. */
  interface Armed {
    readonly timer: NodeJS.Timeout;
    readonly settled: Promise<void>;
  }

  function holdingTimers(): Armed[] {
    const armed: Armed[] = [];
    const realSet = setTimeout;
    const realClear = clearTimeout;
    const settle = new Map<unknown, () => void>();
    jest.spyOn(global, 'setTimeout').mockImplementation(((
      fn: (...args: unknown[]) => void,
      ms?: number,
      ...args: unknown[]
    ) => {
      let done!: () => void;
      const settled = new Promise<void>((resolve) => (done = resolve));
      const timer = realSet(() => {
        done();
        fn(...args);
      }, ms);
      settle.set(timer, done);
      armed.push({ timer, settled });
      return timer;
    }) as typeof setTimeout);
    jest.spyOn(global, 'clearTimeout').mockImplementation(((timer: NodeJS.Timeout) => {
      settle.get(timer)?.();
      realClear(timer);
    }) as typeof clearTimeout);
    return armed;
  }

  /**
   * Every timer armed by the close that holds the process (ref'd) is gone within the bound, on
   * what the process waited (a stall of the host is taken off: stall-meter.ts).
   */
  async function released(armed: Armed[]): Promise<void> {
    jest.restoreAllMocks();
    const holding = armed.filter((a) => a.timer.hasRef());
    // Never waits for ever: ioredis's own wait is 2 s.
    const cap = new Promise<void>((resolve) => setTimeout(resolve, 5_000).unref());
    const { waitedMs } = await timeWithStalls(() =>
      Promise.race([Promise.all(holding.map((a) => a.settled)), cap]),
    );
    expect({ holdsTheProcessPastTheBound: waitedMs >= RELEASED_WITHIN_MS }).toEqual({
      holdsTheProcessPastTheBound: false,
    });
  }
});
