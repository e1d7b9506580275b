import { createServer } from 'node:net';

/**
 * A TCP port free now on 127.0.0.1 (the OS picks it), for a server bound right after. Another
 * process may take it in between: servers started on it retry on another (PortInUseError).
 */
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
