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
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { PortInUseError, spawnRedisServer, throwawayServerArgs } from './spawn-redis-server';

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

const READY_LINE = /Ready to accept connections/;
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
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
// Docker detection: instant when there is no socket, at most ~1 s otherwise.

let dockerReachable: Promise<boolean> | undefined;

export function dockerEngineReachable(timeoutMs = 1000): Promise<boolean> {
  dockerReachable ??= pingDocker(timeoutMs);
  return dockerReachable;
}

function pingDocker(timeoutMs: number): Promise<boolean> {
  const dockerHost = process.env.DOCKER_HOST;
  let target: { socketPath: string } | { host: string; port: number };
  if (dockerHost) {
    if (dockerHost.startsWith('unix://')) {
      target = { socketPath: dockerHost.slice('unix://'.length) };
    } else if (/^(tcp|https?):\/\//.test(dockerHost)) {
      const u = new URL(dockerHost.replace(/^tcp:/, 'http:'));
      target = { host: u.hostname, port: Number(u.port || 2375) };
    } else {
      return Promise.resolve(true); // ssh:// or npipe://: trust the explicit setting
    }
  } else {
    const socketPath = [
      '/var/run/docker.sock',
      process.env.XDG_RUNTIME_DIR && join(process.env.XDG_RUNTIME_DIR, 'docker.sock'),
      join(homedir(), '.docker', 'run', 'docker.sock'),
    ].find((p): p is string => !!p && existsSync(p));
    if (!socketPath) return Promise.resolve(false);
    target = { socketPath };
  }
  return new Promise((resolve) => {
    // A Docker engine answers /_ping with an Api-Version header; on a TLS port (2376) it answers
    // plain HTTP with a 400 that says so. Anything else (a proxy, another server) is not Docker.
    const req = request({ ...target, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve(res.headers['api-version'] !== undefined || /HTTPS server/i.test(body)),
      );
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------
// Container (testcontainers), with a fixed host port so restart() keeps it.

async function startContainerRedis(args: string[]): Promise<TestRedis> {
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  const hostPort = await findFreePort();
  const container = await new GenericContainer(process.env.TEST_REDIS_IMAGE ?? 'redis:7')
    .withExposedPorts({ container: 6379, host: hostPort })
    .withCommand(['redis-server', '--save', '', '--appendonly', 'no', ...args])
    .withWaitStrategy(Wait.forLogMessage(READY_LINE))
    .withStartupTimeout(60_000)
    .start();
  const host = container.getHost();
  const port = container.getMappedPort(6379);
  const dockerContainer = async () =>
    (await getContainerRuntimeClient()).container.getById(container.getId());
  let closed = false;

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const c = await dockerContainer();
    if (!TERMINATING.has(signal)) return void (await c.kill({ signal }));
    const exited = c.wait();
    await c.kill({ signal });
    await exited;
  };
  return {
    url: `redis://${host}:${port}`,
    host,
    port,
    owned: true,
    kind: 'container',
    stop: async () => {
      const client = await getContainerRuntimeClient();
      await client.container.stop(await dockerContainer(), { timeout: 0 });
    },
    kill,
    restart: () => container.restart(),
    pause: async () => void (await (await dockerContainer()).pause()),
    resume: async () => void (await (await dockerContainer()).unpause()),
    close: async () => {
      if (closed) return;
      closed = true;
      await container.stop({ timeout: 0 });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Child process.

const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function trackChild(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const c of liveChildren) c.kill('SIGKILL');
    });
  }
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
}

/** Binds port 0 on 127.0.0.1 and returns the port the OS chose (then frees it). */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Spawns redis-server with persistence off on 127.0.0.1:`port`, ready to accept connections. */
function spawnRedis(port: number, args: string[]): Promise<ChildProcess> {
  return spawnRedisServer([...throwawayServerArgs(port), ...args], {
    timeoutMs: START_TIMEOUT_MS,
    label: `redis-server on port ${port}`,
    track: trackChild,
  });
}

async function startProcessRedis(args: string[]): Promise<TestRedis> {
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 1; !child; attempt++) {
    port = await findFreePort();
    try {
      child = await spawnRedis(port, args);
    } catch (error) {
      // Another process took the port between findFreePort() and redis' bind(): try another.
      if (!(error instanceof PortInUseError) || attempt >= 5) throw error;
    }
  }

  let current: ChildProcess | undefined = child;
  let paused = false;
  const host = '127.0.0.1';

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const c = current;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const done = exited(c);
    c.kill(signal);
    // A stopped process only acts on SIGTERM/SIGINT/SIGQUIT once it is continued.
    if (paused && TERMINATING.has(signal) && signal !== 'SIGKILL') c.kill('SIGCONT');
    if (signal === 'SIGSTOP') paused = true;
    if (signal === 'SIGCONT') paused = false;
    if (!TERMINATING.has(signal)) return;
    const timer = setTimeout(() => c.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await done;
    clearTimeout(timer);
    paused = false;
    current = undefined;
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
