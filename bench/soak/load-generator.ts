/**
 * The soak's load generator, a forked process of its own so that its work never shares an event
 * loop with the instances or with the sampling. Keeps `inflight` requests outstanding (closed
 * loop: the machine's capacity decides the rate), each from a client drawn from a Zipf
 * distribution, to a random algorithm route on a random instance. Every client is a keep-alive
 * http.Agent bound to a loopback address of its own (any of 127.0.0.0/8 works on Linux), which
 * is the identity the limiter sees. Admitted requests feed the over-admission check as their
 * responses arrive.
 */
import { Agent, request } from 'node:http';
import { OverAdmissionChecker } from './over-admission';
import type { FromGenerator, LoadConfig, LoadTotals, ToGenerator } from './protocol';

const REQUEST_TIMEOUT_MS = 30_000;
const IDLE_SOCKET_MS = 4_000;

function send(message: FromGenerator, then?: () => void): void {
  process.send?.(message, undefined, undefined, () => then?.());
}

/** Client i's address: 127.200.0.1, 127.200.0.2, ... (250 per /24, skipping .0 and .255). */
function sourceAddress(i: number): string {
  return `127.${200 + Math.floor(i / 62_500)}.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`;
}

/** Cumulative Zipf(s) weights of clients 0..n-1, normalised to end at 1. */
function zipfCdf(n: number, s: number): Float64Array {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1) ** s;
  for (let i = 0; i < n; i++) cdf[i] /= sum;
  return cdf;
}

function pick(cdf: Float64Array): number {
  const u = Math.random();
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0;
}

function run(config: LoadConfig): void {
  const cdf = zipfCdf(config.identities, config.zipf);
  const targets = config.targets.map((t) => new URL(t));
  const agents: (Agent | undefined)[] = new Array(config.identities);
  const checker = new OverAdmissionChecker(config.policies);
  const totals: LoadTotals = {
    responses: 0,
    ok: 0,
    limited: 0,
    errors: {},
    byAlgo: Object.fromEntries(config.policies.map((p) => [p.algo, { ok: 0, limited: 0 }])),
  };
  let interval = { responses: 0, ok: 0, limited: 0, errors: {} as Record<string, number> };
  let latencies: number[] = [];
  let lastSample = Date.now();
  let overBefore = 0;
  let identitiesSeen = 0;
  let active = 0;
  let stopping = false;

  const prune = setInterval(() => checker.prune(Date.now()), 1_000);
  const countError = (code: string) => {
    totals.errors[code] = (totals.errors[code] ?? 0) + 1;
    interval.errors[code] = (interval.errors[code] ?? 0) + 1;
  };
  const agentOf = (identity: number): Agent => {
    let agent = agents[identity];
    if (!agent) {
      identitiesSeen++;
      // Unbounded sockets per client: requests never queue inside the agent, so the send time
      // taken below is when the request really leaves. Idle sockets are closed after 4 s, before
      // the server's 5 s keep-alive timeout: without a `timeout` the agent ignores the server's
      // Keep-Alive hint and reuses sockets the server is closing (ECONNRESET).
      agent = agents[identity] = new Agent({
        keepAlive: true,
        timeout: IDLE_SOCKET_MS,
        localAddress: sourceAddress(identity),
      });
    }
    return agent;
  };

  const launch = (): void => {
    if (stopping) {
      if (--active === 0) finish();
      return;
    }
    const identity = pick(cdf);
    const policyIndex = Math.floor(Math.random() * config.policies.length);
    const policy = config.policies[policyIndex];
    const target = targets[Math.floor(Math.random() * targets.length)];
    let done = false;
    let answered = false;
    const complete = () => {
      if (done) return;
      done = true;
      launch();
    };
    const sent = Date.now();
    const req = request(
      { host: target.hostname, port: target.port, path: policy.path, agent: agentOf(identity) },
      (res) => {
        // Taken when the headers arrive: the decision was made before the server answered.
        const recv = Date.now();
        answered = true;
        latencies.push(recv - sent);
        if (res.statusCode === 200) {
          totals.responses++;
          interval.responses++;
          totals.ok++;
          interval.ok++;
          totals.byAlgo[policy.algo].ok++;
          checker.admitted(identity, policyIndex, sent, recv);
        } else if (res.statusCode === 429) {
          totals.responses++;
          interval.responses++;
          totals.limited++;
          interval.limited++;
          totals.byAlgo[policy.algo].limited++;
        } else countError(String(res.statusCode));
        res.on('end', complete);
        res.on('error', complete);
        res.resume();
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () =>
      req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })),
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A connection lost after the status arrived was already counted by its status.
      if (answered) return complete();
      // On a reused keep-alive socket, a reset is usually the server closing it as idle just
      // as the request left (the documented keep-alive race), not a failure of the limiter.
      countError(`${error.code ?? 'error'}${req.reusedSocket ? ' (reused socket)' : ''}`);
      complete();
    });
    req.end();
  };

  const finish = () => {
    clearInterval(prune);
    agents.forEach((agent) => agent?.destroy());
    send({ type: 'stopped', check: checker.summary(), totals }, () => process.exit(0));
  };

  process.on('message', (message: ToGenerator) => {
    if (message.type === 'sample') {
      const now = Date.now();
      const sorted = latencies.sort((a, b) => a - b);
      send({
        type: 'sample',
        atMs: now,
        intervalMs: now - lastSample,
        ...interval,
        latencyP50Ms: percentile(sorted, 0.5),
        latencyP99Ms: percentile(sorted, 0.99),
        overAdmissions: checker.overAdmissions() - overBefore,
        identitiesSeen,
      });
      overBefore = checker.overAdmissions();
      interval = { responses: 0, ok: 0, limited: 0, errors: {} };
      latencies = [];
      lastSample = now;
    } else if (message.type === 'stop') {
      stopping = true;
      if (active === 0) finish();
    }
  });
  for (; active < config.inflight; active++) launch();
}

// The parent going away (crash, Ctrl-C) must not leave a generator running.
process.on('disconnect', () => process.exit(1));
process.once('message', (message: ToGenerator) => {
  if (message.type !== 'start') throw new Error(`expected start, got ${message.type}`);
  run(message.config);
  send({ type: 'ready' });
});
