/**
 * `npm run bench:soak`: 10 minutes of sustained traffic at the machine's capacity, from thousands
 * of clients, on two demo instances sharing one Redis (our own redis-server on a free port). The
 * demo is built first by `npm run build` on a private copy of the sources (demo-instances.ts).
 * Samples req/s, each instance's RSS and heap, Redis used_memory and key counts; counts
 * over-admissions from client-side timestamps; after the traffic, checks that every client key
 * expires. Writes bench/results/soak-latest.md and .json (plus timestamped copies).
 *
 * Options: --duration=<s> (600), --warmup=<s> (growth reference mark; default: 5 minutes before
 * the end, at least half the run), --sample=<s> (10; 5 under 2 minutes), --identities=<n> (3000),
 * --zipf=<s> (1.1), --inflight=<n> (128). `npm run bench:soak:smoke` is --duration=60.
 * Exits 1 when a criterion fails. Every child process is killed at the end, also on error/Ctrl-C.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ROOT } from '../../test/support/demo-build';
import { describeMachine } from '../support/machine';
import { killAll, runBenchmark } from '../support/processes';
import { startRedis } from '../support/redis-server';
import { sleep } from '../support/stats';
import { CpuMeter } from './cpu';
import { type Instance, instanceStats, buildDemoCopy, startInstances } from './demo-instances';
import { startGenerator } from './generator-handle';
import { longestKeyTtlMs, soakPolicies } from './policies';
import { type Drain, renderSoak, type SoakResults } from './report';
import { startRedisProbe } from './redis-probe';
import { countKeys, primeCpu, type Sample, type SampleSources, takeSample } from './sampler';
import { criteria, growth } from './verdict';

const PREFIX = 'soak';

function option(name: string, fallback: number): number {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a number > 0`);
  return value;
}

async function main(): Promise<void> {
  const durationSec = option('duration', 600);
  const warmupSec = option('warmup', Math.max(durationSec - 300, durationSec / 2));
  const sampleSec = option('sample', durationSec < 120 ? 5 : 10);
  const load = {
    policies: soakPolicies(),
    identities: option('identities', 3000),
    zipf: option('zipf', 1.1),
    inflight: option('inflight', 128),
  };
  if (warmupSec >= durationSec) throw new Error('--warmup must be shorter than --duration');
  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const started = Date.now();
  const log = (line: string) =>
    console.log(`[soak +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}`);

  log('npm run build (on a private copy of the sources)');
  const demo = await buildDemoCopy();
  const redis = await startRedis();
  const admin = new Redis(redis.url);
  try {
    const machine = await describeMachine(admin);
    const env = { RATE_LIMIT_KEY_PREFIX: PREFIX };
    const fleet = await startInstances(demo.main, redis.url, env, load.policies);
    const { instances } = fleet;
    let crashed: string | undefined;
    for (const i of instances) {
      i.demo.child.once('exit', (code) => (crashed ??= `${i.name} (${code})`));
    }
    log(`redis on port ${redis.port}; instances ${instances.map((i) => i.url).join(', ')}`);

    const generator = await startGenerator({ ...load, targets: instances.map((i) => i.url) });
    const trafficStart = Date.now();
    const probe = startRedisProbe(redis.url);
    const sources: SampleSources = {
      generator,
      instances,
      redis: admin,
      prefix: PREFIX,
      cpu: new CpuMeter(),
      probe,
    };
    await primeCpu(sources);
    const samples: Sample[] = [];
    for (let k = 1; k * sampleSec <= durationSec; k++) {
      await sleep(trafficStart + k * sampleSec * 1000 - Date.now());
      if (crashed) throw new Error(`instance ${crashed} exited during the soak`);
      const s = await takeSample(k * sampleSec, sources);
      samples.push(s);
      const memory = s.instances.map(
        (m, i) =>
          `${'AB'[i]} ${(m.rssBytes / 2 ** 20).toFixed(0)}/${(m.heapUsedBytes / 2 ** 20).toFixed(0)}`,
      );
      const fallback = s.instances.reduce((sum, i) => sum + i.faults.fallback, 0);
      log(
        `${s.reqPerSec.toFixed(0)} req/s (200 ${s.okPerSec.toFixed(0)}, 429 ${s.limitedPerSec.toFixed(0)}, err ${s.errorsPerSec.toFixed(1)}) p99 ${s.latencyP99Ms} ms | RSS/heap MB ${memory.join(' ')} | redis ${(s.usedMemory / 2 ** 20).toFixed(1)} MB, ${s.clientKeys} client keys | others ${s.cpu.others.toFixed(2)} cores, ping max ${s.pingMaxMs} ms, fallback ${fallback}`,
      );
    }
    const stopped = await generator.stop();
    await probe.stop();
    const trafficEnd = Date.now();
    log(`traffic stopped; waiting for the client keys to expire`);

    const drain = await waitForExpiry(admin, fleet, trafficEnd, longestKeyTtlMs(load.policies));
    const growths = [
      ...instances.map((inst, i) =>
        growth(`${inst.name} RSS`, samples, (s) => s.instances[i].rssBytes, warmupSec, durationSec),
      ),
      growth('Redis used_memory', samples, (s) => s.usedMemory, warmupSec, durationSec),
    ];
    const lastPoll = drain.polls[drain.polls.length - 1];
    const results: SoakResults = {
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date().toISOString(),
      machine,
      options: { durationSec, warmupSec, sampleSec },
      load,
      samples,
      totals: stopped.totals,
      check: stopped.check,
      growths,
      drain,
      criteria: criteria(growths, stopped.check, lastPoll.clientKeys, lastPoll.t),
    };
    const markdown = renderSoak(results);
    const stamp = results.startedAt.replace(/[:.]/g, '-');
    for (const name of ['soak-latest', `${stamp}-soak`]) {
      writeFileSync(join(resultsDir, `${name}.md`), markdown);
      writeFileSync(join(resultsDir, `${name}.json`), JSON.stringify(results, null, 2));
    }
    console.log(`\n${markdown}`);
    const failed = results.criteria.filter((c) => !c.pass).length;
    log(`done; ${failed} criterion(s) failed; results in bench/results/soak-latest.md`);
    if (failed) process.exitCode = 1;
  } finally {
    await admin.quit().catch(() => admin.disconnect());
    await redis.stop();
    killAll();
    demo.remove();
  }
}

/**
 * With the instances still running (an app whose traffic stopped, not one that was shut down),
 * polls the client keys once a second until none is left or the longest TTL plus a margin has
 * passed; then stops the instances and lists what is left under the prefix.
 */
async function waitForExpiry(
  redis: Redis,
  { instances, stop }: { instances: readonly Instance[]; stop(): Promise<void> },
  trafficEnd: number,
  longestTtlMs: number,
): Promise<Drain> {
  const polls: Drain['polls'][number][] = [];
  let secondsToZero: number | undefined;
  for (let t = 1; t <= Math.ceil(longestTtlMs / 1000) + 10; t++) {
    await sleep(trafficEnd + t * 1000 - Date.now());
    const clientKeys = await countKeys(redis, `${PREFIX}:{*`);
    polls.push({ t, clientKeys, dbsize: await redis.dbsize() });
    if (clientKeys === 0) {
      secondsToZero = t;
      break;
    }
  }
  // Informational: what the instances hold once idle (not part of the growth criterion).
  const idleRssBytes = (await Promise.all(instances.map(instanceStats))).map((m) => m.rssBytes);
  await stop();
  const bookkeeping: Drain['bookkeeping'][number][] = [];
  const keys = await redis.keys(`${PREFIX}:*`);
  for (const key of keys.sort()) {
    bookkeeping.push({ key, type: await redis.type(key), ttlMs: await redis.pttl(key) });
  }
  return { polls, secondsToZero, idleRssBytes, bookkeeping };
}

runBenchmark(main);
