import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { within } from './support/within';

/**
 * within() bounds what the product waited, as the suite's other wall-time bounds do: it fails a
 * condition that does not come in time, but not one whose answer came in time while the host
 * kept this process from looking.
 */
describe('support/within', () => {
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  let server: Server;
  let socket: Socket;

  beforeAll(async () => {
    // An echo over loopback: a reply that arrives whether this process looks or not.
    server = createServer((s) => s.on('data', (chunk) => s.write(chunk)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
  });
  afterAll(async () => {
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('rejects a condition that never holds, once its deadline has passed', async () => {
    const started = performance.now();
    await expect(within(30, () => false)).rejects.toThrow('condition not met within 30 ms');
    expect(performance.now() - started).toBeGreaterThanOrEqual(30);
  });

  it('accepts an answer that came in time while the process was kept from running', async () => {
    let answered = false;
    socket.once('data', () => (answered = true));
    const met = within(20, () => answered);
    socket.write('x');
    // The host keeps this process off for 5x the deadline; the echo arrives meanwhile.
    busy(100);
    await expect(met).resolves.toBeGreaterThanOrEqual(100);
  });
});
