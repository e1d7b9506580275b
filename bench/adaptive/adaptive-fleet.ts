/**
 * Three demo processes on one Redis for the adaptive benchmark, with RATE_LIMIT_ADAPTIVE set,
 * and what their metrics say of adaptive protection: who leads, the fleet's level, each tier's
 * multiplier, adaptive rejections.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startFleet, type Fleet } from '../../test/support/demo-fleet';
import type { DemoProcess } from '../../test/support/demo-process';
import { track } from '../support/processes';
import type { FromOpenLoop, OpenLoopRun, OpenLoopSecond, ToOpenLoop } from './open-loop-protocol';

export interface AdaptiveView {
  readonly leading: boolean;
  readonly fleetLevel: number;
  readonly localLevel: number;
  readonly multipliers: Record<string, number>;
  /** This instance's pressure by signal (and `overall`), as its last tick measured it. */
  readonly pressure: Record<string, number>;
  /** Adaptive rejections so far, by `tier/loop`. */
  readonly rejections: Record<string, number>;
}

/** `main`: the demo build to run (a private copy: see bench/soak/demo-instances.ts). */
export async function startAdaptiveFleet(
  main: string,
  redisUrl: string,
  mode: 'off' | 'shadow' | 'enforce',
  size = 3,
): Promise<Fleet> {
  return startFleet(
    size,
    { REDIS_URL: redisUrl },
    {
      RATE_LIMIT_ADAPTIVE: mode,
      // Three instances and the generator share 2 cores: each loop also counts as busy the time
      // it waits for a core, so utilisation reads ~0.7 at 0.5x C and ~1 from 0.65x C. At the
      // library's 0.75 (right for an instance with cores of its own) the fleet held ~30 % of C.
      RATE_LIMIT_ADAPTIVE_ELU_TARGET: process.env.ADAPTIVE_ELU_TARGET ?? '0.9',
      TRUST_PROXY: 'loopback',
      // The local loop's drops answered before routing: a 429 through Nest's pipeline costs
      // ~410 us of app CPU, and at 3x C those rejections took ~40 % of each event loop.
      RATE_LIMIT_SHED_REJECTIONS: process.env.ADAPTIVE_SHED ?? 'true',
      // Patient: the instances are meant to be overloaded, and a decision timing out would be
      // decided by the memory fallback, which is not what this measures.
      RATE_LIMIT_TIMEOUT_MS: '2000',
    },
    main,
  );
}

/** One instance's adaptive metrics now; undefined when it does not answer (killed). */
export async function adaptiveView(instance: DemoProcess): Promise<AdaptiveView | undefined> {
  let metrics: Map<string, number>;
  try {
    metrics = await instance.metrics();
  } catch {
    return undefined;
  }
  const multipliers: Record<string, number> = {};
  const rejections: Record<string, number> = {};
  const pressure: Record<string, number> = {};
  for (const [series, value] of metrics) {
    const signal = /^rate_limit_adaptive_pressure\{signal="([^"]+)"\}$/.exec(series);
    if (signal) pressure[signal[1]] = value;
    const multiplier = /^rate_limit_adaptive_multiplier\{tier="([^"]+)"\}$/.exec(series);
    if (multiplier) multipliers[multiplier[1]] = value;
    const rejected =
      /^rate_limit_adaptive_rejections_total\{tier="([^"]+)",loop="([^"]+)",shadow="false"\}$/.exec(
        series,
      );
    if (rejected) rejections[`${rejected[1]}/${rejected[2]}`] = value;
  }
  return {
    leading: metrics.get('rate_limit_adaptive_leading') === 1,
    fleetLevel: metrics.get('rate_limit_adaptive_level{loop="fleet"}') ?? 0,
    localLevel: metrics.get('rate_limit_adaptive_level{loop="local"}') ?? 0,
    multipliers,
    pressure,
    rejections,
  };
}

/** The open-loop generator, forked once; runs one load at a time. */
export interface OpenLoop {
  run(run: OpenLoopRun): Promise<OpenLoopSecond[]>;
  exit(): void;
}

export async function startOpenLoop(): Promise<OpenLoop> {
  const child: ChildProcess = track(
    fork(join(__dirname, 'open-loop.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  await new Promise<void>((resolve) =>
    child.once('message', (m: FromOpenLoop) => m.type === 'ready' && resolve()),
  );
  let nextId = 0;
  return {
    run(run) {
      const id = nextId++;
      return new Promise((resolve) => {
        const onMessage = (m: FromOpenLoop) => {
          if (m.type !== 'done' || m.id !== id) return;
          child.off('message', onMessage);
          resolve(m.seconds);
        };
        child.on('message', onMessage);
        child.send({ type: 'run', id, run } satisfies ToOpenLoop);
      });
    },
    exit: () => child.send({ type: 'exit' } satisfies ToOpenLoop),
  };
}

/** The q-quantile of `values` (nearest rank); 0 for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

export const okLatencies = (seconds: readonly OpenLoopSecond[]): number[] =>
  seconds.flatMap((s) => s.okLatencies);
