/**
 * HTTP phase: every scenario app in its own child process; autocannon (in this process) drives
 * them one at a time, in interleaved repetitions (each repetition runs every scenario once, in
 * a rotated order), with a FLUSHALL (then the client overrides the app stored at bootstrap put
 * back, if it has any) and a warm-up before each measured run.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { Redis } from 'ioredis';
import { stopChild, track } from '../support/processes';
import { redisCommandUsec, resetRedisStats } from '../support/redis-stats';
import { processCpuUs } from '../support/process-cpu';
import { rotate, sleep } from '../support/stats';
import { SCENARIOS, type ScenarioSpec } from './scenarios';
import { copyOverrides, restoreOverrides, type StoredOverrides } from './stored-overrides';

export interface HttpOptions {
  readonly repetitions: number;
  readonly durationSec: number;
  readonly warmupSec: number;
  readonly connections: number;
  /** Scenario names whose app runs with --cpu-prof (profiles written to profileDir). */
  readonly profile: readonly string[];
  readonly profileDir: string;
  /** Only these scenarios (all when empty): a focused comparison, run with more repetitions. */
  readonly scenarios: readonly string[];
  readonly log: (line: string) => void;
}

export interface HttpRun {
  readonly scenario: string;
  readonly repetition: number;
  readonly order: number;
  readonly rps: number;
  readonly total: number;
  readonly durationSec: number;
  readonly latencyP50: number;
  readonly latencyP99: number;
  readonly statusCounts: Record<string, number>;
  readonly errors: number;
  readonly timeouts: number;
  /** Redis command execution time per response (INFO commandstats), in µs. */
  readonly redisUsecPerRequest: number;
  /** CPU time of the app's process per request (µs), from /proc. */
  readonly appUsecPerRequest: number;
  /** Why the run does not look like its scenario (unexpected status codes, errors). */
  readonly problem?: string;
}

interface RunningApp {
  readonly spec: ScenarioSpec;
  readonly child: ChildProcess;
  readonly port: number;
}

function startApp(spec: ScenarioSpec, redisUrl: string, options: HttpOptions): Promise<RunningApp> {
  const execArgv = options.profile.includes(spec.name)
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${options.profileDir}`,
        `--cpu-prof-name=${spec.name}.cpuprofile`,
      ]
    : [];
  if (execArgv.length) mkdirSync(options.profileDir, { recursive: true });
  const child = track(
    fork(join(__dirname, 'server.js'), [spec.name], {
      env: { ...process.env, BENCH_REDIS_URL: redisUrl },
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${spec.name}: app not ready in 30 s`)),
      30_000,
    );
    child.once('message', (message: { type?: string; port?: number }) => {
      clearTimeout(timer);
      if (message?.type === 'ready' && message.port) resolve({ spec, child, port: message.port });
      else reject(new Error(`${spec.name}: unexpected message ${JSON.stringify(message)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${spec.name}: app exited during startup (code ${code})`));
    });
  });
}

async function stopApp(app: RunningApp): Promise<void> {
  if (app.child.connected) app.child.send({ type: 'stop' });
  await stopChild(app.child, 5_000);
}

function load(port: number, connections: number, durationSec: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}/hello`,
    connections,
    pipelining: 1,
    duration: durationSec,
  });
}

function statusCounts(result: autocannon.Result): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    counts[code] = stat?.count ?? 0;
  }
  return counts;
}

function checkRun(spec: ScenarioSpec, run: Omit<HttpRun, 'problem'>): string | undefined {
  const problems: string[] = [];
  if (run.errors > 0) problems.push(`${run.errors} errors`);
  if (run.timeouts > 0) problems.push(`${run.timeouts} timeouts`);
  const unexpected = Object.entries(run.statusCounts).filter(([code]) =>
    spec.expect === 'allowed' ? !code.startsWith('2') : code !== '429',
  );
  if (unexpected.length > 0) {
    problems.push(`unexpected statuses ${unexpected.map(([c, n]) => `${c}x${n}`).join(', ')}`);
  }
  return problems.length ? problems.join('; ') : undefined;
}

export interface HttpApps {
  readonly apps: readonly RunningApp[];
  stop(): Promise<void>;
}

/** Boots every scenario app, two at a time (booting Nest is CPU-bound; the machine has 2 cores). */
export async function startHttpApps(redisUrl: string, options: HttpOptions): Promise<HttpApps> {
  const apps: RunningApp[] = [];
  const stop = () => Promise.all(apps.map(stopApp)).then(() => undefined);
  try {
    const chosen = SCENARIOS.filter(
      (s) => options.scenarios.length === 0 || options.scenarios.includes(s.name),
    );
    for (let i = 0; i < chosen.length; i += 2) {
      const batch = chosen.slice(i, i + 2).map((s) => startApp(s, redisUrl, options));
      const settled = await Promise.allSettled(batch);
      for (const s of settled) if (s.status === 'fulfilled') apps.push(s.value);
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  options.log(`started ${apps.length} HTTP apps (pids ${apps.map((a) => a.child.pid).join(' ')})`);
  return { apps, stop };
}

export async function runHttpBench(
  apps: HttpApps,
  admin: Redis,
  options: HttpOptions,
): Promise<HttpRun[]> {
  const runs: HttpRun[] = [];
  const stored = new Map<string, StoredOverrides>();
  for (const { spec } of apps.apps) {
    if (spec.overridesPrefix === undefined) continue;
    const copy = await copyOverrides(admin, spec.overridesPrefix);
    stored.set(spec.name, copy);
    options.log(`${spec.name}: ${copy.clientKeys} client override keys kept across FLUSHALL`);
  }
  for (let rep = 0; rep < options.repetitions; rep++) {
    // Rotated, and reversed every other repetition: each scenario runs in every position and
    // both before and after each neighbour, so no pair is favoured by always running in turn.
    const rotated = rotate(apps.apps, Math.floor(rep / 2));
    const order = rep % 2 === 1 ? rotated.reverse() : rotated;
    for (const [position, app] of order.entries()) {
      await admin.flushall();
      const overrides = stored.get(app.spec.name);
      if (overrides) await restoreOverrides(admin, overrides);
      // The flood's first request is admitted in the warm-up; the measured run sees only 429s.
      await load(app.port, options.connections, options.warmupSec);
      await sleep(100);
      await resetRedisStats(admin);
      const cpuBefore = processCpuUs(app.child.pid);
      const result = await load(app.port, options.connections, options.durationSec);
      const appUsec = processCpuUs(app.child.pid) - cpuBefore;
      const redisUsec = (await redisCommandUsec(admin)).total;
      const base = {
        scenario: app.spec.name,
        repetition: rep,
        order: position,
        rps: result.requests.total / result.duration,
        total: result.requests.total,
        durationSec: result.duration,
        latencyP50: result.latency.p50,
        latencyP99: result.latency.p99,
        statusCounts: statusCounts(result),
        errors: result.errors,
        timeouts: result.timeouts,
        redisUsecPerRequest: redisUsec / Math.max(1, result.requests.total),
        appUsecPerRequest: appUsec / Math.max(1, result.requests.total),
      };
      const run: HttpRun = { ...base, problem: checkRun(app.spec, base) };
      runs.push(run);
      options.log(
        `rep ${rep + 1}/${options.repetitions} ${app.spec.name.padEnd(28)} ` +
          `${Math.round(run.rps).toString().padStart(6)} req/s  p50 ${run.latencyP50} ms` +
          (run.problem ? `  !! ${run.problem}` : ''),
      );
    }
  }
  return runs;
}
