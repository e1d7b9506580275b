/**
 * `npm run bench:lone:instructions -- [target ...]`: the Node instructions of one lone call (1 in
 * flight, one hot key), counted by callgrind. CPU time per call moves 10-40 % between runs on a
 * shared host; an instruction count moves a few per cent, so it can tell two versions of the
 * request path apart where `npm run bench` cannot. It does not replace that benchmark's CPU and
 * calls/s (cache misses and system calls are not instructions).
 *
 * Each target runs in a process of its own under valgrind: WARMUP_CALLS calls (until V8 has
 * optimised the path; fewer leave it half-compiled and the count twice as high), then the
 * counters are zeroed, CALLS calls counted, and the instructions of the whole process (its
 * compiler and GC threads included) divided by CALLS; also the main thread's alone, which moves
 * far less between runs (about 0.4 % against up to 3k instructions: when V8 compiles and
 * collects on its other threads is not fixed). Targets: the contenders of
 * `npm run bench` (ours, floor, rate-limiter-flexible, nest-lab) and the layers under ours:
 * `fcall` (the lone form's FCALL through ioredis alone), `store` (RedisStore.decide), `engine`
 * (DecisionEngine.decide); `ours` is RateLimiterService.consume(). Needs valgrind.
 *
 * `--redis` counts the same calls in redis-server instead (Node runs natively, Redis under
 * callgrind): what one call costs Redis. At 1 in flight on a small host Redis's work is part of
 * every call's wall time, as much as Node's (see docs/benchmarks.md). The count is checked
 * against the script calls Redis saw (INFO commandstats): a call the client timed out and
 * decided in memory would not reach Redis.
 */
import 'reflect-metadata';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecisionEngine } from '../../libs/rate-limit/src/engine/decision-engine';
import { groupRequests } from '../../libs/rate-limit/src/engine/request-groups';
import type { RateLimitConfig } from '../../libs/rate-limit/src/config/resolve-module-options';
import {
  RATE_LIMIT_CONFIG,
  RATE_LIMIT_STORE,
} from '../../libs/rate-limit/src/rate-limit.constants';
import { loadDecideScripts } from '../../libs/rate-limit/src/store/redis/decide-script';
import type { RedisStore } from '../../libs/rate-limit/src/store/redis/redis-store';
import { PolicyRegistry } from '../../libs/rate-limit/src/registry/policy-registry';
import { ALL_ALLOWED_LIMIT, CONTENDERS, createContenders, HOUR_MS } from './contenders';
import { runBenchmark } from '../support/processes';
import { redisSide, summaryOf } from './lone-instructions-redis';
import { startRedis } from '../support/redis-server';

const LAYERS = ['fcall', 'store', 'engine'] as const;
const TARGETS: readonly string[] = [...CONTENDERS, ...LAYERS];
const WARMUP_CALLS = 20_000;
export const CALLS = 10_000;
const IDENTITY = 'ip:10.0.0.1';

/** In the process valgrind runs: the calls of one target, counted between zero and dump. */
async function child(target: string): Promise<void> {
  const redis = await startRedis();
  const contenders = await createContenders(redis.url);
  try {
    const call = await targetCall(target, contenders);
    for (let i = 0; i < WARMUP_CALLS; i++) await call();
    execFileSync('callgrind_control', ['--zero', String(process.pid)], { stdio: 'ignore' });
    for (let i = 0; i < CALLS; i++) await call();
    execFileSync('callgrind_control', ['--dump', String(process.pid)], { stdio: 'ignore' });
  } finally {
    await contenders.close();
    await redis.stop();
  }
}

export async function targetCall(
  target: string,
  contenders: Awaited<ReturnType<typeof createContenders>>,
): Promise<() => Promise<unknown>> {
  if ((CONTENDERS as readonly string[]).includes(target)) {
    const call = contenders.call[target as (typeof CONTENDERS)[number]];
    return () => call(IDENTITY);
  }
  const { context, service } = contenders;
  const engine = context.get(DecisionEngine);
  const store = context.get<symbol, RedisStore>(RATE_LIMIT_STORE);
  const policy = context.get(PolicyRegistry).get('bench');
  if (!policy) throw new Error("the contenders' policy 'bench' is not registered");
  const requests = [{ policy, identity: IDENTITY, cost: 1 }];
  // The first decision loads the library on this Redis (a bare FCALL would not).
  await service.consume('bench', IDENTITY);
  if (target === 'engine') return () => Promise.resolve(engine.decide(requests));
  const { keys } = context.get<symbol, RateLimitConfig>(RATE_LIMIT_CONFIG);
  const { entries } = groupRequests(keys, requests)[0];
  if (target === 'store') return () => store.decide('consume', entries);
  const fcall = store.client.fcall.bind(store.client);
  const name = loadDecideScripts().library.name;
  // The lone form's one argument (see decide.lua), as RedisStore sends it.
  const spec = `c${policy.algo}:${ALL_ALLOWED_LIMIT}:${HOUR_MS}`;
  return () => fcall(name, 1, entries[0].key, spec);
}

/** Runs each target under callgrind and prints its instructions per call. */
async function parent(targets: readonly string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lone-instructions-'));
  try {
    for (const target of targets) {
      const out = join(dir, target);
      const run = spawnSync(
        'valgrind',
        [
          '--tool=callgrind',
          '--separate-threads=yes',
          `--callgrind-out-file=${out}`,
          process.execPath,
          __filename,
          '--child',
          target,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' },
      );
      // One dump per thread: `<target>.1-01` is the main thread's, where the calls run.
      const dumps = readdirSync(dir).filter((f) => f.startsWith(`${target}.1-`));
      if (run.status !== 0 || !dumps.includes(`${target}.1-01`)) {
        throw new Error(`${target}: valgrind failed (${run.status}): ${run.stderr.slice(-400)}`);
      }
      const counts = dumps.map((f) => summaryOf(join(dir, f)));
      const perCall = (n: number) => Math.round(n / CALLS).toLocaleString('en-US');
      const main = summaryOf(join(dir, `${target}.1-01`));
      console.log(
        `${target.padEnd(22)} ${perCall(counts.reduce((a, b) => a + b, 0))} instructions per call` +
          ` (main thread ${perCall(main)})`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function checked(targets: readonly string[]): readonly string[] {
  const unknown = targets.filter((t) => !TARGETS.includes(t));
  if (unknown.length) throw new Error(`targets: any of ${TARGETS.join(', ')}`);
  return targets;
}

const [mode, ...rest] = process.argv.slice(2);
const targetsOr = (given: string[]): readonly string[] => (given.length ? given : TARGETS);
runBenchmark(() => {
  if (mode === '--child') return child(rest[0]);
  if (mode === '--redis') return redisSide(checked(targetsOr(rest)), CALLS, targetCall);
  return parent(checked(targetsOr(mode ? [mode, ...rest] : [])));
});
