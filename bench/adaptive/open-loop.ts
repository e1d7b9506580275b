/**
 * The adaptive benchmark's load generator, a process of its own (forked): an open loop, so
 * requests are sent at a fixed arrival rate whatever the servers answer (a closed loop would
 * slow down with them and hide an overload). Each request goes to the next instance in turn,
 * from a client of its tier (`X-Forwarded-For`, `X-Plan`); its latency counts from when it was
 * due, so a request queued in this process is late, not free.
 */
import { Agent, request } from 'node:http';
import type { OpenLoopRun, OpenLoopSecond, FromOpenLoop, ToOpenLoop } from './open-loop-protocol';
import { TIER_MIX } from './open-loop-protocol';

const agent = new Agent({ keepAlive: true, maxSockets: 1_024 });
const TIMEOUT_MS = 2_000;
const GOOD_MS = 500;

function send(message: FromOpenLoop): void {
  process.send!(message);
}

function emptySecond(): OpenLoopSecond {
  return { sent: 0, ok: 0, good: 0, shed: 0, limited: 0, errors: 0, okLatencies: [], byTier: {} };
}

async function run(config: OpenLoopRun): Promise<OpenLoopSecond[]> {
  const seconds = Array.from({ length: Math.ceil(config.durationMs / 1_000) }, emptySecond);
  const started = performance.now();
  let sent = 0;
  let pending = 0;
  let finish: () => void = () => {};
  const allAnswered = new Promise<void>((resolve) => (finish = resolve));
  const total = Math.floor((config.rate * config.durationMs) / 1_000);

  const fire = (i: number, dueAt: number) => {
    const tier = TIER_MIX[i % TIER_MIX.length];
    const client = Math.floor(i / TIER_MIX.length) % config.clientsPerTier;
    const target = config.targets[i % config.targets.length];
    const second = seconds[Math.min(seconds.length - 1, Math.floor((dueAt - started) / 1_000))];
    const byTier = (second.byTier[tier] ??= { sent: 0, ok: 0, shed: 0 });
    second.sent++;
    byTier.sent++;
    pending++;
    const done = (status: number, body: string) => {
      const latency = performance.now() - dueAt;
      if (status >= 200 && status < 300) {
        second.ok++;
        byTier.ok++;
        second.okLatencies.push(Math.round(latency * 10) / 10);
        if (latency <= GOOD_MS) second.good++;
      } else if (status === 429 && body.includes('adaptive')) {
        second.shed++;
        byTier.shed++;
      } else if (status === 429) second.limited++;
      else second.errors++;
      if (--pending === 0 && sent === total) finish();
    };
    const req = request(
      `${target}${config.path}`,
      {
        agent,
        timeout: TIMEOUT_MS,
        headers: {
          'X-Plan': tier,
          'X-Forwarded-For': `10.${tier.length}.${client >> 8}.${client & 255}`,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => done(res.statusCode ?? 0, body));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => done(0, ''));
    req.end();
  };

  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - started;
      const due = Math.min(total, Math.floor((config.rate * elapsed) / 1_000));
      while (sent < due) {
        fire(sent, started + (sent * 1_000) / config.rate);
        sent++;
      }
      if (sent === total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  if (pending > 0) await allAnswered;
  return seconds;
}

process.on('message', (message: ToOpenLoop) => {
  if (message.type === 'run') {
    void run(message.run).then((seconds) => send({ type: 'done', id: message.id, seconds }));
  } else process.exit(0);
});
send({ type: 'ready' });
