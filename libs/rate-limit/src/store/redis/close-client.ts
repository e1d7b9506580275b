import type { RedisClient } from './redis-script';
import { withTimeout } from './with-timeout';

/** How long a shutdown waits for Redis to acknowledge QUIT before dropping the connection. */
const QUIT_WAIT_MS = 1_000;

/**
 * ioredis's `disconnectTimeout` for the clients the limiter makes: how long a disconnect waits
 * for the socket to close before destroying it. ioredis arms that wait as a timer that holds the
 * process, and clears it when the socket closes; a client whose socket had already closed (one
 * reconnecting during an outage) never clears it, so an application closed then stayed alive
 * for the whole wait, 2 s by ioredis's default (ioredis #1247). Closing gives up on Redis
 * anyway: nothing is lost by waiting less.
 */
export const DISCONNECT_WAIT_MS = 200;

/**
 * Closes a client without ever holding up the application's shutdown: QUIT when connected (so
 * replies in flight arrive), otherwise, or when Redis does not answer in time, a disconnect. A
 * QUIT sent to a client that is still (re)connecting would wait in its offline queue for a Redis
 * that may never come back.
 */
export async function closeClient(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  await withTimeout(client.quit(), QUIT_WAIT_MS).catch(() => client.disconnect());
}
