/**
 * A real Redis for integration and e2e tests.
 *
 * `startTestRedis()` picks, in this order:
 *  1. `REDIS_URL`, if set: a Redis this helper does not own (`owned: false`). stop/kill/restart/
 *     pause/resume reject, and nothing is ever flushed: isolate tests with `uniquePrefix()`.
 *  2. A `redis:7` container through testcontainers, when a Docker engine answers a ping within
 *     1 s (`DOCKER_HOST`, or a local docker.sock). No socket means no wait at all.
 *  3. A `redis-server` child process on a free 127.0.0.1 port, with persistence off.
 * `TEST_REDIS_MODE=process|docker` forces 2 or 3 (REDIS_URL still wins).
 *
 * Usage, one server per test file:
 *
 *   let redis: TestRedis;
 *   beforeAll(async () => { redis = await startTestRedis(); });
 *   afterAll(async () => { await redis?.close(); });
 *
 * `stop()` takes the server down (awaiting its exit) and `restart()` brings it back on the SAME
 * host and port, so clients can reconnect; `close()` releases it for good. Spawned servers are
 * SIGKILLed when the test process exits, whatever the tests did.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { WatchedProcess } from './processes/watched-process';
import { dockerEngineReachable, startContainerRedis } from './redis-container';
import {
  PortInUseError,
  onFreePort,
  spawnRedisServer,
  throwawayServerArgs,
} from './spawn-redis-server';

export type TestRedisKind = 'external' | 'container' | 'process';

export interface TestRedis {
  /** `redis://host:port` (or REDIS_URL verbatim). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** True when this helper started the server, so it may stop, signal, restart or flush it. */
  readonly owned: boolean;
  readonly kind: TestRedisKind;
  /** Stops the server and resolves once it has exited; `restart()` can bring it back. */
  stop(): Promise<void>;
  /**
   * Sends a signal (default SIGKILL). For SIGKILL, SIGTERM, SIGINT and SIGQUIT it resolves once the
   * server has exited. Prefer `pause()` for SIGSTOP and `resume()` for SIGCONT.
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same host and port (stopping it first if it runs). */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP / docker pause): connections stay open, nothing answers. */
  pause(): Promise<void>;
  /** Undoes `pause()`. */
  resume(): Promise<void>;
  /** Releases the server for good (call in afterAll). Never fails for an external Redis. */
  close(): Promise<void>;
}

export interface StartTestRedisOptions {
  /** Extra `redis-server` arguments, e.g. `['--maxmemory', '1mb']`. Needs an owned server. */
  args?: string[];
}

const START_TIMEOUT_MS = 10_000;
const TERMINATING = new Set<NodeJS.Signals>(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGQUIT']);

/** A random key prefix per test, so tests never see each other's keys (even on a shared Redis). */
export function uniquePrefix(label = 'rltest'): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

/** Synchronous: whether `startTestRedis()` will own its server (use it to skip stop/restart tests). */
export function ownsTestRedis(): boolean {
  return !process.env.REDIS_URL;
}

/** Deletes the keys under one prefix (SCAN + UNLINK): safe on a Redis this helper does not own. */
export async function deleteKeysWithPrefix(client: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await client.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

export async function startTestRedis(options: StartTestRedisOptions = {}): Promise<TestRedis> {
  const args = options.args ?? [];
  const external = process.env.REDIS_URL;
  if (external) {
    if (args.length > 0) {
      throw new Error('startTestRedis({ args }) needs a Redis it owns: unset REDIS_URL to use it.');
    }
    return externalRedis(external);
  }
  const mode = process.env.TEST_REDIS_MODE;
  if (mode === 'docker' || (mode !== 'process' && (await dockerEngineReachable()))) {
    return startContainerRedis(args);
  }
  return startProcessRedis(args);
}

// ---------------------------------------------------------------------------------------------
// REDIS_URL: not ours.

function externalRedis(url: string): TestRedis {
  const parsed = new URL(url);
  const notOwned = (what: string) => () =>
    Promise.reject(
      new Error(`${what}() is unavailable: REDIS_URL points at a Redis this helper does not own`),
    );
  return {
    url,
    host: parsed.hostname || '127.0.0.1',
    port: Number(parsed.port || 6379),
    owned: false,
    kind: 'external',
    stop: notOwned('stop'),
    kill: notOwned('kill'),
    restart: notOwned('restart'),
    pause: notOwned('pause'),
    resume: notOwned('resume'),
    close: () => Promise.resolve(),
  };
}

// ---------------------------------------------------------------------------------------------
// Child process.

/** Spawns redis-server with persistence off on 127.0.0.1:`port`, ready to accept connections. */
function spawnRedis(port: number, args: string[]): Promise<WatchedProcess> {
  return spawnRedisServer([...throwawayServerArgs(port), ...args], {
    timeoutMs: START_TIMEOUT_MS,
    label: `redis-server on port ${port}`,
  });
}

async function startProcessRedis(args: string[]): Promise<TestRedis> {
  const { port, started } = await onFreePort((port) => spawnRedis(port, args));
  let current: WatchedProcess | undefined = started;
  const host = '127.0.0.1';

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const server = current;
    if (!server) return;
    await server.signal(signal);
    if (TERMINATING.has(signal)) current = undefined;
  };
  const stop = () => kill('SIGTERM');

  return {
    url: `redis://${host}:${port}`,
    host,
    port,
    owned: true,
    kind: 'process',
    stop,
    kill,
    restart: async () => {
      await stop();
      // The same port: only a foreign process grabbing it in between can make this fail.
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        try {
          current = await spawnRedis(port, args);
          return;
        } catch (error) {
          if (!(error instanceof PortInUseError) || Date.now() > deadline) throw error;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    },
    pause: () => kill('SIGSTOP'),
    resume: () => kill('SIGCONT'),
    close: stop,
  };
}
