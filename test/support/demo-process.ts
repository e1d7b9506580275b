/**
 * The demo as users run it: `node dist/apps/demo/main.js` in a process of its own, on a free
 * port, on Express unless DEMO_HTTP_PLATFORM (or HTTP_PLATFORM in `env`) says `fastify`. Every
 * process started here is SIGKILLed when the test process exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type IncomingHttpHeaders, request } from 'node:http';
import { DEMO_MAIN, ROOT } from './demo-build';

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

const running = new Set<ChildProcess>();
// A normal exit also closes the pipes; this is for an exit with handles still open.
process.on('exit', () => running.forEach((child) => child.stdin?.destroy()));

const START_TIMEOUT_MS = 30_000;

/**
 * Runs the demo under a tiny `sh` watchdog holding the read end of a pipe from this process: when
 * the pipe closes (this process ends in any way, even SIGKILLed by jest) it SIGKILLs the demo, so
 * no instance outlives its test. SIGTERM is passed on (a graceful stop).
 */
const WATCHDOG =
  'exec 3<&0; "$0" "$@" <&- & pid=$!; trap \'kill -TERM $pid\' TERM; ' +
  '(read _ <&3; kill -9 $pid 2>/dev/null) & wait $pid; wait $pid';

export function startDemoProcess(
  env: Record<string, string>,
  main: string = DEMO_MAIN,
): Promise<DemoProcess> {
  const child = spawn('sh', ['-c', WATCHDOG, process.execPath, main], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      NODE_ENV: 'production',
      // The whole load suite runs on Fastify with DEMO_HTTP_PLATFORM=fastify.
      HTTP_PLATFORM: process.env.DEMO_HTTP_PLATFORM ?? 'express',
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Ending the watchdog's pipe after it has gone must not throw EPIPE.
  child.stdin?.on('error', () => undefined);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.stdin?.end();
      reject(new Error(`demo process ${why}:\n${output.slice(-4000)}`));
    };
    const timer = setTimeout(
      () => fail(`not listening within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-64_000);
      const listening = /Listening on http:\/\/localhost:(\d+) \(pid (\d+)/.exec(output);
      if (listening) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(demoProcess(child, Number(listening[1]), Number(listening[2]), output));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code, signal) => fail(`exited (code ${code}, signal ${signal})`));
  });
}

function demoProcess(
  child: ChildProcess,
  port: number,
  pid: number,
  startOutput: string,
): DemoProcess {
  // Keep draining the pipes (a full pipe would block the demo's logging), keeping the tail.
  let output = startOutput;
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-64_000));
  child.stdout?.on('data', keep);
  child.stderr?.removeAllListeners('data');
  child.stderr?.on('data', keep);
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
    pid,
    url,
    child,
    get,
    async metrics() {
      const { body } = await get('/metrics');
      return parseMetrics(body);
    },
    recentOutput: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      // Closing the pipe makes the watchdog SIGKILL a demo that ignored SIGTERM.
      const timer = setTimeout(() => child.stdin?.end(), 5_000);
      await exited;
      clearTimeout(timer);
      child.stdin?.end();
    },
  };
}

/** `name{labels} value` lines of a Prometheus text scrape (comments skipped). */
export function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

/** Sum of every series of `name` (any labels). */
export function metricTotal(metrics: Map<string, number>, name: string): number {
  let total = 0;
  for (const [series, value] of metrics) {
    if (series === name || series.startsWith(`${name}{`)) total += value;
  }
  return total;
}
