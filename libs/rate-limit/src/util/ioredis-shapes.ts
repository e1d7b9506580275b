import type { Cluster, Redis } from 'ioredis';

/**
 * What the library needs to know of ioredis's objects without loading ioredis, an optional peer
 * an application on the memory store does not install. ioredis's clients say whether they are a
 * Cluster; its error replies (redis-errors' ReplyError) carry their class name.
 */
export function isCluster(client: Redis | Cluster): client is Cluster {
  return client.isCluster === true;
}

/** An ioredis Redis or Cluster client (an application's own, passed as the `redis` option). */
export function isRedisClient(value: unknown): value is Redis | Cluster {
  if (typeof value !== 'object' || value === null) return false;
  const client = value as { isCluster?: unknown; sendCommand?: unknown };
  return typeof client.isCluster === 'boolean' && typeof client.sendCommand === 'function';
}

/** An error Redis replied with (WRONGTYPE, ERR ...), as opposed to a connection failure. */
export function isReplyError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ReplyError';
}
