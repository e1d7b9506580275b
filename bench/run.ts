/**
 * `npm run bench` (about 11 minutes) / `npm run bench:quick` (about 1 minute smoke run).
 *
 * Starts its own redis-server on a free port, then:
 *  1. memory: Redis bytes per client for each algorithm and the peers;
 *  2. library: RateLimiterService.consume() vs rate-limiter-flexible, @nest-lab's storage and a
 *     one-EVALSHA floor, at 1/64/256 calls in flight, on a hot key and on 10,000 keys;
 *  3. HTTP: autocannon against small Nest apps (one child process each), interleaved repetitions.
 * Writes bench/results/latest.md (+ latest.json and a timestamped copy of both) and prints the
 * markdown. Every child process is killed at the end, also on error or Ctrl-C.
 *
 * Options: --quick; --only=memory,library,http; --profile=<scenario,...> runs those HTTP apps
 * with --cpu-prof (profiles in bench/results/profiles); --scenarios=<scenario,...> runs only
 * those HTTP apps; --repetitions=<n> instead of the mode's HTTP repetitions.
 */
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { type HttpOptions, runHttpBench, startHttpApps } from './http/http-bench';
import { createContenders } from './library/contenders';
import { runLibraryBench } from './library/library-bench';
import { runMemoryBench } from './library/memory-bench';
import { type BenchConfig, type BenchResults, renderMarkdown, targets } from './report';
import { describeMachine } from './support/machine';
import { runBenchmark } from './support/processes';
import { startRedis } from './support/redis-server';

const FULL: BenchConfig = {
  mode: 'full',
  http: { repetitions: 5, durationSec: 5, warmupSec: 1, connections: 50 },
  library: {
    repetitions: 3,
    durationMs: 1_500,
    warmupMs: 300,
    inflight: [1, 64, 256],
    keyCount: 10_000,
  },
  memoryClients: 10_000,
  memorySettleMs: 1_500,
};

const QUICK: BenchConfig = {
  mode: 'quick',
  http: { repetitions: 2, durationSec: 1, warmupSec: 0.3, connections: 50 },
  library: {
    repetitions: 1,
    durationMs: 400,
    warmupMs: 100,
    inflight: [1, 64, 256],
    keyCount: 10_000,
  },
  memoryClients: 10_000,
  memorySettleMs: 500,
};

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

async function main(): Promise<void> {
  const config = process.argv.includes('--quick') ? QUICK : FULL;
  const only = new Set((option('only') ?? 'memory,library,http').split(','));
  const profile = (option('profile') ?? '').split(',').filter(Boolean);
  const resultsDir = join(__dirname, '..', '..', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const started = Date.now();
  const log = (line: string) =>
    console.log(`[bench +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}`);

  const redis = await startRedis();
  const admin = new Redis(redis.url);
  try {
    const machine = await describeMachine(admin);
    log(
      `${config.mode} run; redis-server ${machine.redis} on port ${redis.port}; ${machine.cpu} x${machine.cores}`,
    );

    const repetitions = Number(option('repetitions') ?? config.http.repetitions);
    if (!Number.isInteger(repetitions) || repetitions < 1)
      throw new Error('--repetitions: 1 or more');
    const httpOptions: HttpOptions = {
      ...config.http,
      repetitions,
      scenarios: (option('scenarios') ?? '').split(',').filter(Boolean),
      profile,
      profileDir: join(resultsDir, 'profiles'),
      log,
    };
    let memory: BenchResults['memory'] = [];
    let library: BenchResults['library'] = [];
    let http: BenchResults['http'] = [];
    let libraryOursNotFromRedis = 0;
    if (only.has('memory') || only.has('library')) {
      const contenders = await createContenders(redis.url);
      try {
        if (only.has('memory')) {
          memory = await runMemoryBench(
            contenders,
            admin,
            config.memoryClients,
            config.memorySettleMs,
            log,
          );
        }
        if (only.has('library')) {
          library = await runLibraryBench(contenders, admin, { ...config.library, log });
          libraryOursNotFromRedis = contenders.oursNotFromRedis();
        }
      } finally {
        await contenders.close();
      }
    }
    if (only.has('http')) {
      // Started only now: their connections and boot work would disturb the phases above.
      const apps = await startHttpApps(redis.url, httpOptions);
      try {
        http = await runHttpBench(apps, admin, httpOptions);
      } finally {
        await apps.stop();
      }
    }

    const results: BenchResults = {
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date().toISOString(),
      machine,
      config,
      http,
      library,
      libraryOursNotFromRedis,
      memory,
    };
    const markdown = renderMarkdown(results);
    const stamp = results.startedAt.replace(/[:.]/g, '-');
    writeFileSync(join(resultsDir, 'latest.md'), markdown);
    writeFileSync(join(resultsDir, 'latest.json'), JSON.stringify(results, null, 2));
    writeFileSync(join(resultsDir, `${stamp}-${config.mode}.md`), markdown);
    writeFileSync(
      join(resultsDir, `${stamp}-${config.mode}.json`),
      JSON.stringify(results, null, 2),
    );
    console.log(`\n${markdown}`);
    const failed = targets(results).filter((t) => !t.pass).length;
    log(
      `done in ${((Date.now() - started) / 1000).toFixed(0)} s; ${failed} target(s) not met; results in bench/results/latest.md`,
    );
  } finally {
    await admin.quit().catch(() => admin.disconnect());
    await redis.stop();
  }
}

runBenchmark(main);
