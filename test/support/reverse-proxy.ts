/**
 * A real reverse-proxy hop for tests: a Node process of its own that forwards every request to
 * `target`, appending the address it was connected from to X-Forwarded-For (as nginx's
 * `proxy_add_x_forwarded_for` does). Killed with the test process (it exits when its stdin
 * closes).
 */
import { type ChildProcess, spawn } from 'node:child_process';

const PROXY = `
const http = require('node:http');
const target = new URL(process.argv[1]);
const server = http.createServer((req, res) => {
  const prior = req.headers['x-forwarded-for'];
  const hop = req.socket.remoteAddress;
  const headers = { ...req.headers, 'x-forwarded-for': prior ? prior + ', ' + hop : hop };
  const upstream = http.request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
    (answer) => { res.writeHead(answer.statusCode, answer.headers); answer.pipe(res); },
  );
  upstream.on('error', () => { res.writeHead(502); res.end(); });
  req.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => console.log('proxy listening on ' + server.address().port));
process.stdin.on('end', () => process.exit(0)).resume();
`;

export interface ReverseProxy {
  readonly url: string;
  close(): void;
}

export function startReverseProxy(target: string): Promise<ReverseProxy> {
  const child: ChildProcess = spawn(process.execPath, ['-e', PROXY, target], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the proxy exited (code ${code})`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const port = /proxy listening on (\d+)/.exec(chunk.toString())?.[1];
      if (port) {
        resolve({
          url: `http://127.0.0.1:${port}`,
          close: () => {
            child.stdin!.end();
            child.kill();
          },
        });
      }
    });
  });
}
