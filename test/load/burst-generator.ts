/**
 * The load generator of the HTTP load tests, a process of its own (so that its work never shares
 * an event loop with the instances or the test). It reads one JSON burst per line on stdin, sends
 * that many requests at once, each on a new connection from the given source address (one
 * client, as a limiter sees it), alternating between the targets, and writes one JSON result
 * per line on stdout.
 *
 * Only Node's own modules: the test compiles this file on its own.
 */
import { request } from 'node:http';
import { createInterface } from 'node:readline';

export interface BurstCommand {
  id: number;
  /** Base URLs (`http://127.0.0.1:port`); request i goes to targets[i % targets.length]. */
  targets: string[];
  path: string;
  count: number;
  /** A loopback address (any of 127.0.0.0/8): the client's identity. */
  sourceAddress: string;
  /** Also sends this request (uncounted) when request `atIndex` of the burst goes out. */
  extra?: { url: string; atIndex: number };
  /** Writes a progress line once this many responses have arrived. */
  notifyAfter?: number;
  /** Spreads the requests evenly over this long instead of sending them all at once. */
  spreadMs?: number;
  /** Sent with every request of the burst (an API key, say). */
  headers?: Record<string, string>;
}

/** Written (before the result) when `notifyAfter` responses have arrived. */
export interface BurstProgress {
  id: number;
  progress: number;
}

export interface BurstResult {
  id: number;
  /** Status code (or error code) -> number of responses. */
  statuses: Record<string, number>;
  /** Per target (in `targets` order): 200 responses. */
  admittedByTarget: number[];
  elapsedMs: number;
  extraStatus?: number | string;
}

function send(
  url: string,
  sourceAddress: string,
  headers: Record<string, string> = {},
): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, localAddress: sourceAddress, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    req.setTimeout(30_000, () =>
      req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })),
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    req.end();
  });
}

async function burst(command: BurstCommand): Promise<BurstResult> {
  const started = performance.now();
  const pending: Promise<number | string>[] = [];
  let answered = 0;
  const counted = (status: number | string): number | string => {
    if (++answered === command.notifyAfter) {
      const progress: BurstProgress = { id: command.id, progress: answered };
      process.stdout.write(`${JSON.stringify(progress)}\n`);
    }
    return status;
  };
  let extra: Promise<number | string> | undefined;
  for (let i = 0; i < command.count; i++) {
    if (command.spreadMs) {
      const due = started + (i * command.spreadMs) / command.count;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    if (command.extra && i === command.extra.atIndex) {
      extra = send(command.extra.url, command.sourceAddress);
    }
    const target = command.targets[i % command.targets.length];
    pending.push(
      send(`${target}${command.path}`, command.sourceAddress, command.headers).then(counted),
    );
  }
  const statuses: Record<string, number> = {};
  const admittedByTarget = command.targets.map(() => 0);
  for (const [i, status] of (await Promise.all(pending)).entries()) {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status === 200) admittedByTarget[i % command.targets.length]++;
  }
  return {
    id: command.id,
    statuses,
    admittedByTarget,
    elapsedMs: Math.round(performance.now() - started),
    extraStatus: await extra,
  };
}

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const command = JSON.parse(line) as BurstCommand;
    void burst(command).then((result) => process.stdout.write(`${JSON.stringify(result)}\n`));
  })
  // The test process has gone (even SIGKILLed): so does the load.
  .on('close', () => process.exit(0));
