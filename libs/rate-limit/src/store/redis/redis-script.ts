import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { isCluster } from '../../util/ioredis-shapes';

export type RedisClient = Redis | Cluster;

/** Bounds one round trip to Redis (the command timeout); the identity by default. */
export interface RoundTrip {
  <T>(reply: Promise<T>): Promise<T>;
  /**
   * Where a bound provides it: the same bound, an error Redis replied in time answered by
   * `recover` in the same step (a catch after the bound costs every call a promise of its own).
   */
  readonly recovering?: <T>(reply: Promise<T>, recover: Recover<T>) => Promise<T>;
}

/** What a reply's error becomes (rethrown when it is not one the caller recovers from). */
export type Recover<T> = (error: unknown) => T | Promise<T>;

export const unbounded: RoundTrip = (reply) => reply;

/** `reply` within `roundTrip`'s bound, an error Redis replied in time answered by `recover`. */
export function boundOrRecover<T>(
  roundTrip: RoundTrip,
  reply: Promise<T>,
  recover: Recover<T>,
): Promise<T> {
  return roundTrip.recovering
    ? roundTrip.recovering(reply, recover)
    : roundTrip(reply).catch(recover);
}

/**
 * A Lua script run by EVALSHA. After NOSCRIPT (which proves the script did not run, so nothing
 * is ever executed twice) the script is loaded once with SCRIPT LOAD, on every master of a
 * cluster, while the calls that got NOSCRIPT meanwhile wait for that one load; then they run
 * EVALSHA again. Sending the whole text with each of them (EVAL) made a burst reaching a node
 * without the script write its 20 KB once per request (a cluster decides each request on its
 * own): megabytes for Redis to read and hash at once. The SHA1 is computed from the text
 * actually loaded, never pinned by hand.
 */
export class RedisScript {
  readonly sha1: string;
  private loading?: Promise<unknown>;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  run(
    client: RedisClient,
    keys: readonly string[],
    args: readonly (string | number)[],
    roundTrip: RoundTrip = unbounded,
  ): Promise<unknown> {
    // Each round trip is bounded on its own: NOSCRIPT is an answer, and what follows it (first
    // call after a Redis restart) gets the whole timeout again.
    const reply = client.evalsha(this.sha1, keys.length, ...keys, ...args);
    return boundOrRecover(roundTrip, reply, (error) => {
      if (!isNoScript(error)) throw error;
      return this.loadAndRun(client, keys, args, roundTrip);
    });
  }

  private async loadAndRun(
    client: RedisClient,
    keys: readonly string[],
    args: readonly (string | number)[],
    roundTrip: RoundTrip,
  ): Promise<unknown> {
    await roundTrip(this.load(client));
    try {
      return await roundTrip(client.evalsha(this.sha1, keys.length, ...keys, ...args));
    } catch (error) {
      // Flushed again meanwhile (or a node the load missed): the text itself, this once.
      if (!isNoScript(error)) throw error;
      return roundTrip(client.eval(this.source, keys.length, ...keys, ...args));
    }
  }

  /** One SCRIPT LOAD at a time, shared by every call waiting for it. */
  private load(client: RedisClient): Promise<unknown> {
    this.loading ??= loadEverywhere(client, this.source).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }
}

/** A node the load fails on (down, say) only costs its callers the EVAL fallback. */
function loadEverywhere(client: RedisClient, source: string): Promise<unknown> {
  const nodes = isCluster(client) ? client.nodes('master') : [client];
  return Promise.allSettled(nodes.map((node) => node.script('LOAD', source)));
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
