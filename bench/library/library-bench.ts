/**
 * Library phase: each contender with N calls in flight (N workers, each awaiting its call and
 * issuing the next) for a fixed time, on one hot key and on a population of 10,000 keys.
 * Repetitions are interleaved: each repetition runs every cell once, contenders in rotated order.
 */
import type { Redis } from 'ioredis';
import { redisCommandUsec, resetRedisStats } from '../support/redis-stats';
import { rotate, sleep } from '../support/stats';
import { CONTENDERS, type ContenderName, type Contenders, identity } from './contenders';

export interface LibraryOptions {
  readonly repetitions: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  readonly inflight: readonly number[];
  readonly keyCount: number;
  readonly log: (line: string) => void;
}

export type KeyMode = 'hot key' | '10,000 keys';

export interface LibraryRun {
  readonly contender: ContenderName;
  readonly keys: KeyMode;
  readonly inflight: number;
  readonly repetition: number;
  readonly opsPerSec: number;
  readonly ops: number;
  readonly errors: number;
  /** Redis command execution time per call (INFO commandstats), in µs. */
  readonly redisUsecPerOp: number;
  /**
   * This process's CPU time (user + system, process.cpuUsage) per call, in µs: the Node work of
   * one decision, client included. Steadier than calls/s on a shared host, since time spent
   * waiting for a core or for Redis is not in it.
   */
  readonly cpuUsecPerOp: number;
}

async function drive(
  call: (id: string) => Promise<unknown>,
  ids: readonly string[],
  inflight: number,
  durationMs: number,
): Promise<{ ops: number; errors: number; elapsedMs: number }> {
  let stop = false;
  let ops = 0;
  let errors = 0;
  let next = 0;
  const worker = async () => {
    while (!stop) {
      const id = ids[next++ % ids.length];
      try {
        await call(id);
        ops++;
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  const timer = setTimeout(() => (stop = true), durationMs);
  await Promise.all(Array.from({ length: inflight }, worker));
  clearTimeout(timer);
  return { ops, errors, elapsedMs: performance.now() - started };
}

export async function runLibraryBench(
  contenders: Contenders,
  admin: Redis,
  options: LibraryOptions,
): Promise<LibraryRun[]> {
  const keySets: [KeyMode, string[]][] = [
    ['hot key', [identity(1)]],
    ['10,000 keys', Array.from({ length: options.keyCount }, (_, i) => identity(i))],
  ];
  const runs: LibraryRun[] = [];
  for (let rep = 0; rep < options.repetitions; rep++) {
    for (const [keys, ids] of keySets) {
      for (const inflight of options.inflight) {
        const line: string[] = [];
        for (const contender of rotate(CONTENDERS, rep)) {
          await admin.flushall();
          await drive(contenders.call[contender], ids, inflight, options.warmupMs);
          await sleep(50);
          await resetRedisStats(admin);
          const cpuBefore = process.cpuUsage();
          const { ops, errors, elapsedMs } = await drive(
            contenders.call[contender],
            ids,
            inflight,
            options.durationMs,
          );
          const cpu = process.cpuUsage(cpuBefore);
          const cpuUsecPerOp = (cpu.user + cpu.system) / Math.max(1, ops);
          const redisUsecPerOp = (await redisCommandUsec(admin)).total / Math.max(1, ops);
          const opsPerSec = ops / (elapsedMs / 1000);
          runs.push({
            contender,
            keys,
            inflight,
            repetition: rep,
            opsPerSec,
            ops,
            errors,
            redisUsecPerOp,
            cpuUsecPerOp,
          });
          line.push(`${contender} ${Math.round(opsPerSec)}${errors ? ` (${errors} errors)` : ''}`);
        }
        options.log(
          `rep ${rep + 1}/${options.repetitions} ${keys}, ${inflight} in flight: ${line.join(', ')}`,
        );
      }
    }
  }
  return runs;
}
