import { ServiceUnavailableException } from '@nestjs/common';
import Redis from 'ioredis';
import { toHttpError } from '../src/admin/errors-to-http.interceptor';
import { fromStore, writing } from '../src/admin/store-actions';
import { InvalidCursorError } from '../src/errors/invalid-cursor.error';
import { RateLimitStoreError } from '../src/errors/rate-limit-store.error';
import { RedisClientOverrideIndex } from '../src/backends/redis/redis-client-override-index';
import { scanKeys } from '../src/store/redis/scan-keys';
import { findFreePort } from './support/processes/free-port';
import { startTestRedis, uniquePrefix, type TestRedis } from './support/redis-test-server';

/**
 * 503 means Redis is unavailable (SPEC section 11): a cursor Redis would refuse is the caller's
 * bad input (400), checked before Redis is asked, and any "ERR ..." reply Redis gives the admin
 * is no outage. The client-overrides listing once answered 503 "Redis is unavailable: ERR
 * invalid cursor" for a cursor from 2^64 to 10^20 - 1 while Redis was healthy.
 */
const PAST_U64 = ['18446744073709551616', '99999999999999999999', '00018446744073709551616'];
const LAST_U64 = '18446744073709551615';

let redis: TestRedis;
let client: Redis;
beforeAll(async () => {
  redis = await startTestRedis();
  client = new Redis(redis.url);
});
afterAll(async () => {
  client.disconnect();
  await redis.close();
});

/** Redis's own count of `command` calls (its INFO commandstats line), to see whether it was sent. */
async function callsOf(command: string): Promise<string | undefined> {
  const stats = (await client.info('commandstats')).split('\r\n');
  return stats.find((line) => line.startsWith(`cmdstat_${command}:`));
}

const answer = async (action: () => Promise<unknown>) => {
  const failure = await fromStore(action).then(
    () => undefined,
    (error: unknown) => error,
  );
  return { failure, http: toHttpError(failure) };
};

describe('cursors past 2^64 - 1', () => {
  it('the client-overrides listing refuses them as invalid cursors, without asking Redis', async () => {
    const index = new RedisClientOverrideIndex(client, uniquePrefix());
    await index.page('p', '0', 10); // HSCAN is in the stats from here on
    const before = await callsOf('hscan');
    for (const cursor of PAST_U64) {
      const { failure, http } = await answer(() => index.page('p', cursor, 10));
      expect(failure).toBeInstanceOf(InvalidCursorError);
      expect((http as { getStatus(): number }).getStatus()).toBe(400);
    }
    expect(await callsOf('hscan')).toBe(before);
    await expect(index.page('p', LAST_U64, 10)).resolves.toEqual({ records: [], cursor: null });
  });

  it('the keys listing does too', async () => {
    const match = `${uniquePrefix()}:*`;
    await scanKeys(client, match, null, 10);
    const before = await callsOf('scan');
    for (const cursor of PAST_U64) {
      await expect(scanKeys(client, match, `0:${cursor}`, 10)).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
    }
    expect(await callsOf('scan')).toBe(before);
    await expect(scanKeys(client, match, `0:${LAST_U64}`, 10)).resolves.toMatchObject({
      keys: [],
    });
  });
});

describe('an "ERR ..." reply to an admin command', () => {
  const refusedBy = [
    ['HSCAN past 2^64', () => client.hscan('k', PAST_U64[0])],
    ['a command without its arguments', () => client.call('HSET', 'k')],
    ['SET with an expiry out of range', () => client.set('k', 'v', 'PX', '-5')],
  ] as const;

  it.each(refusedBy)('%s is not answered 503: Redis is up', async (_what, command) => {
    const { failure, http } = await answer(command);
    expect((failure as Error).message).toMatch(/^ERR /);
    expect(http).not.toBeInstanceOf(ServiceUnavailableException);
    expect(failure).not.toBeInstanceOf(RateLimitStoreError);
  });

  it('nor when the store wrapped it, nor for a write', async () => {
    const reply = await client.call('HSET', 'k').catch((error: Error) => error);
    const wrapped = new RateLimitStoreError('error', `Redis failed: ${String(reply)}`, {
      cause: reply,
    });
    for (const run of [fromStore, writing]) {
      const failure = await run(() => Promise.reject(wrapped)).catch((error: unknown) => error);
      expect(failure).toBe(reply);
      expect(toHttpError(failure)).not.toBeInstanceOf(ServiceUnavailableException);
    }
  });

  it('while a Redis out of reach still answers 503', async () => {
    const away = new Redis({
      port: await findFreePort(),
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    try {
      const { http } = await answer(() => away.hscan('k', '0'));
      expect(http).toBeInstanceOf(ServiceUnavailableException);
    } finally {
      away.disconnect();
    }
  });
});
