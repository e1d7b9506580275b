import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

export type RedisClient = Redis | Cluster;

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
  ): Promise<unknown> {
    try {
      return await client.evalsha(this.sha1, keys.length, ...keys, ...args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
