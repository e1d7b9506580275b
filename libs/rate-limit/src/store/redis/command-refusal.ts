import { isReplyError } from '../../util/ioredis-shapes';

/**
 * A full server answers new connections this way: Redis is unavailable to us, not refusing
 * what it was sent.
 */
const SERVER_FULL = /^ERR max number of clients/;

/**
 * Redis's "ERR ..." reply to a command, if `error` is one or was caused by one (the store wraps
 * errors in RateLimitStoreError): Redis is up and refused what it was sent, its arguments or
 * its form. Unlike a lost connection, a timeout or a server state (LOADING, READONLY, OOM,
 * BUSY...), it says nothing of Redis's availability, and the same command would fail again.
 */
export function commandRefusal(error: unknown): Error | undefined {
  for (let e = error, hops = 0; e instanceof Error && hops < 4; e = e.cause, hops++) {
    if (isReplyError(e) && /^ERR /.test(e.message) && !SERVER_FULL.test(e.message)) {
      return e;
    }
  }
  return undefined;
}
