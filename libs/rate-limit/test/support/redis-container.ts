/**
 * A `redis:7` container through testcontainers, for startTestRedis() when a Docker engine
 * answers; with a fixed host port so restart() keeps it. Detecting the engine is instant when
 * there is no socket, at most ~1 s otherwise.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './processes/free-port';
import { READY_LINE } from './spawn-redis-server';
import type { TestRedis } from './redis-test-server';

const TERMINATING = new Set<NodeJS.Signals>(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGQUIT']);

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

export async function startContainerRedis(args: string[]): Promise<TestRedis> {
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
