import { createServer } from 'node:net';

/** A TCP port free now on 127.0.0.1 (the OS picks it), for a server bound right after. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
