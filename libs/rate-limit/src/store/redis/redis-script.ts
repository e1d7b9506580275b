import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

export type RedisClient = Redis | Cluster;

/** Bounds one round trip to Redis (the command timeout); the identity by default. */
export type RoundTrip = <T>(reply: Promise<T>) => Promise<T>;

const unbounded: RoundTrip = (reply) => reply;

/**
 * A Lua script run by EVALSHA. EVAL is sent only after the server answered NOSCRIPT, which
 * proves the script did not run, so nothing is ever executed twice. The SHA1 is computed from
 * the text actually loaded, never pinned by hand.
 */
export class RedisScript {
  readonly sha1: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  async run(
    client: RedisClient,
    keys: readonly string[],
    args: readonly (string | number)[],
    roundTrip: RoundTrip = unbounded,
  ): Promise<unknown> {
    // Each round trip is bounded on its own: NOSCRIPT is an answer, and the EVAL that follows
    // it (first call after a Redis restart) gets the whole timeout again.
    try {
      return await roundTrip(client.evalsha(this.sha1, keys.length, ...keys, ...args));
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return roundTrip(client.eval(this.source, keys.length, ...keys, ...args));
    }
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
