/**
 * A regression guard for the Redis work of a decision that timing cannot give on a noisy host:
 * instructions counted by callgrind inside EVAL/EVALSHA (the script, the commands it calls, the
 * reply) per decision, for each algorithm, one call at a time and in a batch of 64 identities.
 * The budgets are the largest counts of three runs (2026-11-24, after the decide script lost
 * two per-call functions and redis.replicate_commands: 155-189 k single, 62-91 k batched, 4-6 %
 * below the first budgets' runs; Redis 7.0.15, valgrind 3.19) plus 15 %: counts move by up to
 * 6 % between runs (Lua's incremental GC, timestamps of varying length), far less than a
 * regression worth catching. A
 * change that makes the scripts dearer must be justified here; one that makes them cheaper
 * should lower the budget.
 */
import Redis from 'ioredis';
import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from '../src/policy/rate-limit-algorithm';
import { KeyBuilder } from '../src/keys/key-builder';
import { RedisStore } from '../src/store/redis/redis-store';
import { startCallgrindRedis, type CallgrindRedis } from './support/callgrind-redis';
import { uniquePrefix } from './support/redis-test-server';
import { Client, policy } from './support/store-harness';

const SINGLE_CALLS = 40;
const BATCH = 64;

/** Instructions per decision: [one at a time, in a batch of 64]. */
const BUDGET: Record<RateLimitAlgorithm, [single: number, batched: number]> = {
  'fixed-window': [187_000, 81_000],
  'sliding-window': [218_000, 105_000],
  'sliding-window-counter': [204_000, 97_000],
  'token-bucket': [202_000, 72_000],
  'leaky-bucket': [189_000, 78_000],
  gcra: [180_000, 76_000],
};

jest.setTimeout(180_000);

let server: CallgrindRedis;
let redis: Redis;
let admin: Redis;
const measured: string[] = [];

beforeAll(async () => {
  server = await startCallgrindRedis();
  redis = new Redis(server.url);
  admin = new Redis(server.url);
  await redis.ping();
});

afterAll(async () => {
  console.log(`Lua instructions per decision (callgrind):\n${measured.join('\n')}`);
  redis?.disconnect();
  admin?.disconnect();
  await server?.close();
});

async function scriptCalls(): Promise<number> {
  const stats = await admin.info('commandstats');
  const count = (name: string) =>
    Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return count('evalsha') + count('eval');
}

it.each(RATE_LIMIT_ALGORITHMS)(
  '%s: within its instruction budget, single and batched',
  async (algo) => {
    const store = new RedisStore({ client: redis, commandTimeoutMs: 60_000 });
    const keys = new KeyBuilder(uniquePrefix());
    const sut = { store, keys, keyCount: async () => 0, pttl: async () => 0 };
    // Never refused: the budget is for the usual decision, an admitted request.
    const limit = algo === 'sliding-window' ? 10_000 : 1_000_000; // the log's largest
    const p = policy({ algo, limit, window: '1h' }, `budget-${algo}`);
    const lone = new Client(sut, 'ip:10.1.0.1');
    const crowd = Array.from({ length: BATCH }, (_, i) => new Client(sut, `ip:10.2.0.${i}`));
    // State exists and the script is loaded before counting: the steady state of a busy client.
    await lone.hit(p);
    await Promise.all(crowd.map((c) => c.hit(p)));

    await admin.config('RESETSTAT');
    const single = await server.instructions(async () => {
      for (let i = 0; i < SINGLE_CALLS; i++) await lone.hit(p);
    });
    expect(await scriptCalls()).toBe(SINGLE_CALLS); // one script call per decision
    await admin.config('RESETSTAT');
    const batched = await server.instructions(async () => {
      await Promise.all(crowd.map((c) => c.hit(p)));
    });
    const batchCalls = await scriptCalls();
    expect(batchCalls).toBeLessThanOrEqual(2); // the batcher sends 64 groups as one or two calls

    const perSingle = Math.round(single / SINGLE_CALLS);
    const perBatched = Math.round(batched / BATCH);
    measured.push(
      `  ${algo.padEnd(22)} single ${perSingle} (budget ${BUDGET[algo][0]}), ` +
        `batched ${perBatched} (budget ${BUDGET[algo][1]}; ${batchCalls} script calls)`,
    );
    expect(perSingle).toBeLessThanOrEqual(BUDGET[algo][0]);
    expect(perBatched).toBeLessThanOrEqual(BUDGET[algo][1]);
  },
);
