/**
 * `npm run bench:lone:instructions -- --redis [target ...]` (see lone-instructions.ts): each
 * target's lone calls made from this process, Node running natively, and counted in a
 * redis-server run under callgrind.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { createContenders } from './contenders';
import { startRedis } from '../support/redis-server';

/** Redis has no JIT: these only load the library and settle the keyspace. */
const REDIS_WARMUP_CALLS = 1_000;

type Contenders = Awaited<ReturnType<typeof createContenders>>;
type TargetCall = (target: string, contenders: Contenders) => Promise<() => Promise<unknown>>;

/** Each target's calls from this process, counted in a redis-server run under callgrind. */
export async function redisSide(
  targets: readonly string[],
  calls: number,
  targetCall: TargetCall,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lone-instructions-redis-'));
  try {
    for (const target of targets) {
      const out = join(dir, target);
      const redis = await startRedis([
        'valgrind',
        '--tool=callgrind',
        `--callgrind-out-file=${out}`,
      ]);
      const contenders = await createContenders(redis.url);
      const admin = new Redis(redis.url);
      let scriptCalls: number;
      try {
        const call = await targetCall(target, contenders);
        for (let i = 0; i < REDIS_WARMUP_CALLS; i++) await call();
        const before = await scriptCallsOf(admin);
        execFileSync('callgrind_control', ['--zero', String(redis.pid)], { stdio: 'ignore' });
        for (let i = 0; i < calls; i++) await call();
        execFileSync('callgrind_control', ['--dump', String(redis.pid)], { stdio: 'ignore' });
        scriptCalls = (await scriptCallsOf(admin)) - before;
      } finally {
        admin.disconnect();
        await contenders.close();
        await redis.stop();
      }
      // Background scripts (the heartbeat) may add a few; fewer means calls decided in memory.
      if (scriptCalls < calls) {
        throw new Error(`${target}: Redis ran ${scriptCalls} script calls of ${calls}`);
      }
      const dump = readdirSync(dir).find((f) => f.startsWith(`${target}.`));
      if (!dump) throw new Error(`${target}: no callgrind dump`);
      const perCall = summaryOf(join(dir, dump)) / calls;
      console.log(
        `${`${target} (Redis)`.padEnd(30)} ${Math.round(perCall).toLocaleString('en-US')} instructions per call`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Script calls Redis has run (FCALL, EVALSHA, EVAL), from INFO commandstats. */
async function scriptCallsOf(admin: Redis): Promise<number> {
  const info = await admin.info('commandstats');
  let calls = 0;
  for (const [, count] of info.matchAll(/^cmdstat_(?:fcall|evalsha|eval):calls=(\d+)/gm)) {
    calls += Number(count);
  }
  return calls;
}

/** The instructions a callgrind dump counted (its `summary:` line). */
export function summaryOf(file: string): number {
  const summary = /^summary: (\d+)$/m.exec(readFileSync(file, 'utf8'));
  if (!summary) throw new Error(`no summary in ${file}`);
  return Number(summary[1]);
}
