import { createHash } from 'node:crypto';
import { isCluster } from '../../util/ioredis-shapes';
import {
  boundOrRecover,
  unbounded,
  type RedisClient,
  type RedisScript,
  type RoundTrip,
} from './redis-script';

/**
 * The decide program as a Redis Functions library (Redis 7+): loaded once per node with FUNCTION
 * LOAD, then called with FCALL. A script's chunk runs from the top on every EVALSHA, defining
 * every function and table again; a library's runs once, at load (measured: the decide script
 * cost Redis 12 us per lone call, of which 8 went to that).
 *
 * The library's name carries a hash of its text, so instances of different versions on one Redis
 * each call their own (a function name is unique on a server). After "Function not found"
 * (proof it did not run: nothing is executed twice) the library is loaded on every master, once
 * for all the calls waiting for it, and the call is made again: a restarted or flushed Redis, a
 * node added to a cluster. A failover needs nothing: a replica holds its master's libraries.
 *
 * A server without functions (Redis 6), or a user not allowed to load them, answers the call
 * with the script instead, from then on.
 */
export class RedisFunction {
  readonly library: string;
  readonly name: string;
  readonly source: string;
  /** False once the server showed it cannot run the library: the scripts decide from then on. */
  available = true;
  private loading?: Promise<void>;

  /** `body`: the chunk that defines `entry`, the function registered under this name. */
  constructor(body: string, entry: string) {
    const hash = createHash('sha1').update(body).digest('hex').slice(0, 16);
    this.library = `rate_limit_${hash}`;
    this.name = `${this.library}_decide`;
    this.source = `#!lua name=${this.library}\n${body}\nredis.register_function('${this.name}', ${entry})\n`;
  }

  /** FCALL, or `script` where the server has no functions. */
  run(
    client: RedisClient,
    script: RedisScript,
    keys: readonly string[],
    args: readonly (string | number)[],
    roundTrip: RoundTrip = unbounded,
  ): Promise<unknown> {
    if (!this.available) return script.run(client, keys, args, roundTrip);
    return boundOrRecover(roundTrip, fcall(client, this.name, keys, args), (error) => {
      if (isUnknownCommand(error)) {
        this.available = false;
        return script.run(client, keys, args, roundTrip);
      }
      if (!isFunctionNotFound(error)) throw error;
      return this.loadAndRun(client, script, keys, args, roundTrip);
    });
  }

  private async loadAndRun(
    client: RedisClient,
    script: RedisScript,
    keys: readonly string[],
    args: readonly (string | number)[],
    roundTrip: RoundTrip,
  ): Promise<unknown> {
    await roundTrip(this.load(client));
    if (!this.available) return script.run(client, keys, args, roundTrip);
    try {
      return await roundTrip(fcall(client, this.name, keys, args));
    } catch (error) {
      // Flushed again meanwhile (or a node the load missed): the script, this once.
      if (!isFunctionNotFound(error)) throw error;
      return script.run(client, keys, args, roundTrip);
    }
  }

  /** One FUNCTION LOAD per master at a time, shared by every call waiting for it. */
  private load(client: RedisClient): Promise<void> {
    this.loading ??= this.loadEverywhere(client).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async loadEverywhere(client: RedisClient): Promise<void> {
    const nodes = isCluster(client) ? client.nodes('master') : [client];
    const loads = await Promise.allSettled(
      nodes.map((node) => node.call('FUNCTION', 'LOAD', this.source)),
    );
    for (const load of loads) {
      // Another instance of this version loaded it first: the library is there.
      if (load.status === 'fulfilled' || isAlreadyLoaded(load.reason)) continue;
      // A node that is down only costs its callers the script. One that answers with an error
      // cannot hold this library (no functions, a user who may not load them, a library Redis
      // refuses): the scripts from now on, rather than a failed load before every call.
      if (isReplyError(load.reason)) this.available = false;
    }
  }
}

/**
 * FCALL through the client's own method, which knows where its keys are (a cluster routes by
 * them); a client whose command table predates it sends the command by name.
 */
function fcall(
  client: RedisClient,
  name: string,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  if (typeof client.fcall === 'function') return client.fcall(name, keys.length, ...keys, ...args);
  return client.call('FCALL', name, keys.length, ...keys, ...args);
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : '');

function isFunctionNotFound(error: unknown): boolean {
  return messageOf(error).startsWith('ERR Function not found');
}

function isUnknownCommand(error: unknown): boolean {
  return /^ERR unknown (command|subcommand)/i.test(messageOf(error));
}

function isAlreadyLoaded(error: unknown): boolean {
  return /already exists/.test(messageOf(error));
}

/** An error Redis answered (not a connection's failure or a timeout). */
function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}
