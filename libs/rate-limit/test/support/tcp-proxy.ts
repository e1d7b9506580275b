import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a test Redis, for faults a signal to the server cannot time: the
 * network dropping every connection at once, or a command held on its way to Redis (Redis
 * never answers it, as a stalled server would, while the chunks before it went through).
 */
export interface TcpProxy {
  readonly url: string;
  /** Destroys every connection through the proxy (clients see the network drop). */
  dropConnections(): void;
  /**
   * From now on, the first client-to-Redis chunk matching `pattern` (whole, with any command
   * sent in the same write) is held, with all that follows on its connection; resolves once one
   * has been, never if none matches.
   */
  holdFrom(pattern: RegExp): Promise<void>;
  /**
   * From now on, the first client-to-Redis chunk matching `pattern` is not sent: the client gets
   * `reply` (RESP, say an error) instead, and the connection goes on; resolves once it has.
   */
  answerInstead(pattern: RegExp, reply: string): Promise<void>;
  close(): Promise<void>;
}

export function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let hold: { pattern: RegExp; held: () => void; reply?: string } | undefined;
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    let holding = false;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (!holding && hold?.pattern.test(chunk.toString('latin1'))) {
        const { held, reply } = hold;
        hold = undefined;
        held();
        if (reply === undefined) holding = true;
        else return void client.write(reply);
      }
      if (!holding) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address !== 'object' || !address) return reject(new Error('no port'));
      resolve({
        url: `redis://127.0.0.1:${address.port}`,
        dropConnections: () => {
          for (const socket of sockets) socket.destroy();
        },
        holdFrom: (pattern) => new Promise<void>((held) => (hold = { pattern, held })),
        answerInstead: (pattern, reply) =>
          new Promise<void>((held) => (hold = { pattern, held, reply })),
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
