/**
 * `npm run bench:lone -- [contender] [calls]`: one contender's lone calls (1 in flight, one hot
 * key) on a Redis of its own, in rounds, printing this process's CPU time and the wall time per
 * call. Run under `node --cpu-prof` (`npm run bench:lone:profile`) for a flame graph of what a
 * lone decision costs. The side-by-side figures are `npm run bench`'s.
 */
import 'reflect-metadata';
import { CONTENDERS, type ContenderName, createContenders } from './contenders';
import { runBenchmark } from '../support/processes';
import { startRedis } from '../support/redis-server';

const ROUNDS = 5;
const WARMUP_CALLS = 3_000;

async function main(): Promise<void> {
  const contender = (process.argv[2] ?? 'ours') as ContenderName;
  if (!CONTENDERS.includes(contender))
    throw new Error(`contender: one of ${CONTENDERS.join(', ')}`);
  const calls = Number(process.argv[3] ?? 20_000);
  const redis = await startRedis();
  const contenders = await createContenders(redis.url);
  try {
    const call = contenders.call[contender];
    for (let i = 0; i < WARMUP_CALLS; i++) await call('ip:10.0.0.1');
    for (let round = 1; round <= ROUNDS; round++) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < calls; i++) await call('ip:10.0.0.1');
      const cpu = process.cpuUsage(cpuBefore);
      const wallUs = ((performance.now() - started) * 1000) / calls;
      console.log(
        `${contender} round ${round}/${ROUNDS}: CPU ${((cpu.user + cpu.system) / calls).toFixed(1)} µs per call, wall ${wallUs.toFixed(1)} µs`,
      );
    }
  } finally {
    await contenders.close();
    await redis.stop();
  }
}

runBenchmark(main);
