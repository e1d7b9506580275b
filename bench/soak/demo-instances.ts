/**
 * The instances under test: the demo as users run it (`node .../apps/demo/main.js`, built by
 * `npm run build`), each a process of its own on a free port (test/support/demo-process.ts),
 * with limits set through the admin API.
 *
 * `npm run build` runs in a private copy of the sources (apps/, libs/ and the build config, in a
 * temporary directory), not in place: it empties dist/ before it rebuilds, and on a shared working
 * tree the test suites and other benchmarks rebuild dist/ all the time, so an in-place build could
 * be copied or started half-written (it was) and would pull files from under others' running
 * instances. The copy is outside the repository, so no tsc, eslint or jest run picks it up.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../test/support/demo-build';
import { startFleet } from '../../test/support/demo-fleet';
import { type DemoProcess, metricTotal } from '../../test/support/demo-process';
import type { SoakPolicy } from './policies';

export interface Instance {
  readonly name: string;
  readonly url: string;
  /** The demo's own process id (for /proc). */
  readonly pid: number;
  readonly demo: DemoProcess;
}

export interface InstanceStats {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** Cumulative: decisions made without Redis, failed Redis commands, breaker openings. */
  readonly faults: { fallback: number; redisErrors: number; circuitOpenings: number };
}

const BUILD_INPUTS = ['apps', 'libs', 'nest-cli.json', 'package.json', 'tsconfig.json'];

/** Runs `npm run build` on a copy of the sources; returns its main.js and how to remove it. */
export async function buildDemoCopy(): Promise<{ main: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'soak-demo-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  // Also on Ctrl-C or an error (processes.ts exits the process then).
  process.once('exit', remove);
  try {
    for (const input of BUILD_INPUTS)
      cpSync(join(ROOT, input), join(dir, input), { recursive: true });
    // Packages (and the nest CLI) resolve by walking up from the copy: point it at the repository's.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await promisify(execFile)('npm', ['run', 'build'], { cwd: dir, maxBuffer: 16 * 2 ** 20 });
  } catch (caught) {
    remove();
    const error = caught as Error & { stdout?: string; stderr?: string };
    throw new Error(`npm run build failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`, {
      cause: caught,
    });
  }
  return { main: join(dir, 'dist', 'apps', 'demo', 'main.js'), remove };
}

/**
 * Two instances (A and B) of the demo build `main` on one Redis, each policy set through the
 * admin API and applied by both (test/support/demo-fleet.ts).
 */
export async function startInstances(
  main: string,
  redisUrl: string,
  env: Record<string, string>,
  policies: readonly SoakPolicy[],
): Promise<{ instances: Instance[]; stop(): Promise<void> }> {
  const fleet = await startFleet(2, { REDIS_URL: redisUrl }, env, main);
  for (const { name, limit, windowMs, burst } of policies) {
    await fleet.setPolicy(name, { limit, windowMs, burst });
  }
  const instances = fleet.instances.map((demo, i) => ({
    name: 'AB'[i],
    url: demo.url,
    pid: demo.pid,
    demo,
  }));
  return { instances, stop: () => fleet.stop() };
}

/** RSS from /proc (what the kernel charges the process); heap and faults from its /metrics. */
export async function instanceStats(instance: Instance): Promise<InstanceStats> {
  const status = readFileSync(`/proc/${instance.pid}/status`, 'utf8');
  const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  const metrics = await instance.demo.metrics();
  return {
    rssBytes: rssKb * 1024,
    heapUsedBytes: metrics.get('nodejs_heap_size_used_bytes') ?? Number.NaN,
    faults: {
      fallback: metricTotal(metrics, 'rate_limit_fallback_decisions_total'),
      redisErrors: metricTotal(metrics, 'rate_limit_redis_errors_total'),
      circuitOpenings: metricTotal(metrics, 'rate_limit_redis_circuit_opened_total'),
    },
  };
}
