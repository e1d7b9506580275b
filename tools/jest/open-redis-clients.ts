/**
 * Jest setup file: notes every ioredis client (Redis and Cluster) a test file opens, and whether
 * it was closed (quit, disconnect, or ended), for the test environment to check once the file is
 * done (see no-open-redis-clients.environment.ts). A client left open goes on reconnecting after
 * its server is gone: a timer of one file charged to whatever runs next in the worker.
 */
import { Cluster, Redis } from 'ioredis';

interface Opened {
  readonly site: string;
  closed: boolean;
}

const opened: { client: Redis | Cluster; entry: Opened }[] = [];

/** Where the client was made: the test's own frames (not node_modules, not this file). */
function siteOf(stack = ''): string {
  return stack
    .split('\n')
    .slice(1)
    .filter((line) => !line.includes('node_modules') && !line.includes('open-redis-clients'))
    .slice(0, 4)
    .map((line) => line.trim())
    .join(' <- ');
}

function track(prototype: { connect(...args: unknown[]): unknown }): void {
  const connect = prototype.connect;
  prototype.connect = function (this: Redis | Cluster, ...args: unknown[]) {
    if (!opened.some((o) => o.client === this)) {
      const entry: Opened = { site: siteOf(new Error().stack), closed: false };
      opened.push({ client: this, entry });
      this.once('end', () => (entry.closed = true));
      for (const method of ['quit', 'disconnect'] as const) {
        const close = this[method].bind(this) as (...a: unknown[]) => unknown;
        this[method] = ((...a: unknown[]) => {
          entry.closed = true;
          return close(...a);
        }) as never;
      }
    }
    return connect.apply(this, args);
  };
}

track(Redis.prototype as never);
track(Cluster.prototype as never);

/** Read by the environment's teardown: where each client still open was made. */
(globalThis as { openRedisClients?: () => string[] }).openRedisClients = () =>
  opened.filter(({ client, entry }) => !entry.closed && client.status !== 'end').map((o) => o.entry.site);
