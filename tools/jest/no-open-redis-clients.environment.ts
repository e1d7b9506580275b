import { TestEnvironment } from 'jest-environment-node';

/**
 * Node's test environment, failing a test file that leaves an ioredis client open once its tests
 * and hooks are done (see open-redis-clients.ts): such a client goes on reconnecting, in the
 * same worker, after the file's Redis is gone.
 */
export default class NoOpenRedisClientsEnvironment extends TestEnvironment {
  override async teardown(): Promise<void> {
    const open = (this.global as { openRedisClients?: () => string[] }).openRedisClients?.() ?? [];
    await super.teardown();
    if (open.length > 0) {
      throw new Error(
        `${open.length} ioredis client(s) left open (neither quit, disconnected nor ended), made at:\n` +
          open.map((site) => `  ${site}`).join('\n'),
      );
    }
  }
}
