/**
 * The demo as users run it: `node dist/apps/demo/main.js` in a process of its own, on a free
 * port, on Express unless TEST_HTTP_PLATFORM (or HTTP_PLATFORM in `env`) says `fastify`. Every
 * process started here is SIGKILLed when the test process exits.
 */
import type { ChildProcess } from 'node:child_process';
import { type IncomingHttpHeaders, request } from 'node:http';
import {
  spawnWatched,
  type WatchedProcess,
} from '../../libs/rate-limit/test/support/processes/watched-process';
import { parseMetrics } from '../../libs/rate-limit/test/support/prometheus-text';
import { DEMO_MAIN, ROOT } from './demo-build';

export { metricTotal, parseMetrics } from '../../libs/rate-limit/test/support/prometheus-text';

export interface DemoResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface DemoProcess {
  readonly port: number;
  /** The demo's own process (the child is its watchdog). */
  readonly pid: number;
  readonly url: string;
  readonly child: ChildProcess;
  /** GET on this instance; resolves with the status, headers and body. */
  get(path: string, headers?: Record<string, string>): Promise<DemoResponse>;
  /** The Prometheus scrape, as `series{labels} -> value`. */
  metrics(): Promise<Map<string, number>>;
  /** The last 64 KB the process wrote (stdout and stderr), for a failing test's report. */
  recentOutput(): string;
  /** SIGTERM (graceful shutdown); resolves once the process has exited. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const LISTENING = /Listening on http:\/\/localhost:(\d+) \(pid (\d+)/;

/** Starts the demo under a watchdog (it cannot outlive this process) and waits until it listens. */
export async function startDemoProcess(
  env: Record<string, string>,
  main: string = DEMO_MAIN,
): Promise<DemoProcess> {
  const demo = await spawnWatched(process.execPath, [main], {
    ready: LISTENING,
    timeoutMs: START_TIMEOUT_MS,
    label: 'demo process',
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      NODE_ENV: 'production',
      // The whole load suite runs on Fastify with TEST_HTTP_PLATFORM=fastify.
      HTTP_PLATFORM: process.env.TEST_HTTP_PLATFORM ?? 'express',
      ...env,
    },
  });
  return demoProcess(demo, Number(LISTENING.exec(demo.output())![1]));
}

function demoProcess(demo: WatchedProcess, port: number): DemoProcess {
  const url = `http://127.0.0.1:${port}`;
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<DemoResponse>((resolve, reject) => {
      const req = request(`${url}${path}`, { headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
  return {
    port,
    pid: demo.pid,
    url,
    child: demo.child,
    get,
    async metrics() {
      const { body } = await get('/metrics');
      return parseMetrics(body);
    },
    recentOutput: () => demo.output(),
    // A graceful stop; the watchdog SIGKILLs a demo that has not exited within 5 s.
    stop: () => demo.signal('SIGTERM'),
  };
}
