/**
 * `npm run bench:bursts`: exactness under bursts, measured the way users deploy. For each
 * topology (one redis-server, a 3-master Cluster) and each algorithm, `--restarts` times: start
 * `--instances` fresh demo processes (`node dist/apps/demo/main.js`, built by `npm run build`),
 * send a cold burst of 1,000 concurrent requests from one client (their first traffic), then
 * `--warm` rounds of a burst of each of `--warm-sizes` from new clients; limit 50 over a window
 * too long to refill. Counts how many bursts admitted exactly 50, and the fallback decisions,
 * Redis errors and circuit openings the instances recorded. Writes
 * bench/results/bursts-latest.md.
 *
 * Options: --restarts=10 --warm=5 --warm-sizes=300 --instances=2 --topologies=single,cluster.
 * The rounds `npm test` ran before it bursted the algorithms at once (3 instances, 20 rounds of
 * 300 and 1,000 after one start): --restarts=1 --warm=20 --warm-sizes=300,1000 --instances=3.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RATE_LIMIT_ALGORITHMS } from '../../libs/rate-limit/src/policy/rate-limit-algorithm';
import { type RedisEnv, startFleet } from '../../test/support/demo-fleet';
import { startTestCluster } from '../../libs/rate-limit/test/support/redis-cluster';
import { startTestRedis } from '../../libs/rate-limit/test/support/redis-test-server';
import { newSourceAddress, startLoadGenerator } from '../../test/support/load-generator';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';
import { runBenchmark } from '../support/processes';

const LIMIT = 50;
const COLD = 1_000;
const WINDOW_MS = windowWithoutBoundary();

const option = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;

interface Row {
  topology: string;
  algo: string;
  cold: number[];
  warm: number[];
  faults: { fallbackDecisions: number; redisErrors: number; circuitOpenings: number };
}

async function topologyEnv(name: string): Promise<{ env: RedisEnv; close(): Promise<void> }> {
  if (name === 'cluster') {
    const cluster = await startTestCluster({ masters: 3, replicasPerMaster: 0 });
    const nodes = cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',');
    return { env: { REDIS_CLUSTER_NODES: nodes }, close: () => cluster.close() };
  }
  const redis = await startTestRedis();
  return { env: { REDIS_URL: redis.url }, close: () => redis.close() };
}

async function main(): Promise<void> {
  const restarts = Number(option('restarts', '10'));
  const warmBursts = Number(option('warm', '5'));
  const warmSizes = option('warm-sizes', '300').split(',').map(Number);
  const instances = Number(option('instances', '2'));
  const topologies = option('topologies', 'single,cluster').split(',');
  const load = startLoadGenerator();
  const rows: Row[] = [];
  const started = Date.now();
  for (const topology of topologies) {
    const redis = await topologyEnv(topology);
    try {
      for (const algo of RATE_LIMIT_ALGORITHMS) {
        const row: Row = {
          topology,
          algo,
          cold: [],
          warm: [],
          faults: { fallbackDecisions: 0, redisErrors: 0, circuitOpenings: 0 },
        };
        const env = { RATE_LIMIT_KEY_PREFIX: `bursts-${topology}-${algo}` };
        const setup = await startFleet(1, redis.env, env);
        await setup.setPolicy(`demo.${algo}`, { limit: LIMIT, windowMs: WINDOW_MS, burst: LIMIT });
        await setup.stop();
        for (let r = 0; r < restarts; r++) {
          const fleet = await startFleet(instances, redis.env, env);
          const burst = async (count: number) => {
            const result = await load.burst({
              targets: fleet.targets,
              path: `/api/${algo}`,
              count,
              sourceAddress: newSourceAddress(),
            });
            return result.statuses[200] ?? 0;
          };
          row.cold.push(await burst(COLD));
          for (let w = 0; w < warmBursts; w++) {
            for (const size of warmSizes) row.warm.push(await burst(size));
          }
          const faults = await fleet.faults();
          for (const k of Object.keys(faults) as (keyof Row['faults'])[])
            row.faults[k] += faults[k];
          await fleet.stop();
        }
        rows.push(row);
        console.log(describe(row));
      }
    } finally {
      await redis.close();
    }
  }
  load.close();
  const header =
    `Bursts: ${instances} fresh instances per restart, ${restarts} restarts per algorithm, ` +
    `cold burst ${COLD}, ${warmBursts} warm rounds of bursts of ${warmSizes.join(' and ')} per ` +
    `restart, limit ${LIMIT}; ` +
    `${new Date(started).toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s`;
  const table = [
    '| topology | algorithm | cold bursts exact | warm bursts exact | admitted (min-max) | fallback decisions | Redis errors | circuit openings |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.topology} | ${r.algo} | ${exact(r.cold)} | ${exact(r.warm)} | ` +
        `${Math.min(...r.cold, ...r.warm)}-${Math.max(...r.cold, ...r.warm)} | ` +
        `${r.faults.fallbackDecisions} | ${r.faults.redisErrors} | ${r.faults.circuitOpenings} |`,
    ),
  ].join('\n');
  const dir = join(__dirname, '..', '..', '..', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'bursts-latest.md'), `${header}\n\n${table}\n`);
  console.log(`\n${header}\n\n${table}`);
}

const exact = (counts: number[]) =>
  `${counts.filter((c) => c === LIMIT).length} of ${counts.length}`;

const describe = (r: Row) =>
  `${r.topology} ${r.algo}: cold ${r.cold.join(',')}; warm ${exact(r.warm)} ` +
  `(${Math.min(...r.warm)}-${Math.max(...r.warm)}); faults ${JSON.stringify(r.faults)}`;

runBenchmark(main);
