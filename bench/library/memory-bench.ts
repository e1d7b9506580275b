/**
 * Memory phase: for each algorithm (and each peer), 10,000 clients make one request each
 * (window 1 h, limit 100, so every key outlives the measurement). Reported: the `used_memory`
 * delta divided by the number of clients (includes the keyspace and expires dict entries and
 * their growth), and MEMORY USAGE (SAMPLES 0) of one client's key.
 */
import type { Redis } from 'ioredis';
import { RATE_LIMIT_ALGORITHMS } from '../../libs/rate-limit/src';
import { sleep } from '../support/stats';
import {
  type Contenders,
  HOUR_MS,
  identity,
  MEMORY_LIMIT,
  MEMORY_POLICY,
  SHORT_MEMORY_POLICY,
} from './contenders';

export interface MemoryRun {
  readonly contender: string;
  readonly clients: number;
  readonly keysCreated: number;
  readonly usedMemoryDelta: number;
  readonly bytesPerClient: number;
  /** Change of mem_clients_normal over the same interval (should be ~0). */
  readonly clientBuffersDelta: number;
  /**
   * Change of what the instance's own keys hold (heartbeat, stats, traffic series: MEMORY USAGE
   * of every key that is no client's), written by its background flush during the measurement.
   */
  readonly instanceKeysDelta: number;
  /** What one client's state costs: the delta less client buffers and the instance's keys. */
  readonly stateBytesPerClient: number;
  readonly sampleKey: string;
  readonly sampleKeyMemoryUsage: number;
}

interface MemoryReading {
  readonly used: number;
  /** Client buffers (mem_clients_normal): part of used_memory, not of the keys. */
  readonly clients: number;
}

async function usedMemory(admin: Redis, settleMs: number): Promise<MemoryReading> {
  // Let clientsCron shrink the query/output buffers of the connections that just worked.
  await sleep(settleMs);
  const info = await admin.info('memory');
  const field = (name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(info)?.[1]);
  return { used: field('used_memory'), clients: field('mem_clients_normal') };
}

/** Bytes (MEMORY USAGE) of the keys that belong to no client: no 10.x.y.z identity in them. */
async function instanceKeysBytes(admin: Redis): Promise<number> {
  const keys = (await admin.keys('*')).filter((k) => !/10\.\d+\.\d+\.\d+/.test(k));
  const sizes = await Promise.all(keys.map((k) => admin.memory('USAGE', k, 'SAMPLES', 0)));
  return sizes.reduce<number>((sum, size) => sum + Number(size ?? 0), 0);
}

async function inParallel(
  count: number,
  from: number,
  inflight: number,
  call: (id: string) => Promise<unknown>,
) {
  let next = from;
  const end = from + count;
  const worker = async () => {
    while (next < end) await call(identity(next++));
  };
  await Promise.all(Array.from({ length: inflight }, worker));
}

async function measure(
  admin: Redis,
  contender: string,
  clients: number,
  settleMs: number,
  call: (id: string) => Promise<unknown>,
): Promise<MemoryRun> {
  await admin.flushall();
  // Warm-up on other identities: loads scripts and sizes the connection buffers first.
  await inParallel(256, 1_000_000, 64, call);
  const keysBefore = await admin.dbsize();
  const before = await usedMemory(admin, settleMs);
  const instanceBefore = await instanceKeysBytes(admin);
  await inParallel(clients, 0, 64, call);
  const after = await usedMemory(admin, settleMs);
  const instanceKeysDelta = (await instanceKeysBytes(admin)) - instanceBefore;
  const keysCreated = (await admin.dbsize()) - keysBefore;
  // Client 0's key (its identity may be encoded in the key: 'ip%3A10.0.0.0').
  const sampleKey =
    (await admin.keys('*10.0.0.0*')).find(
      (k) => /10\.0\.0\.0(?![0-9])/.test(k) && !k.endsWith(':block'),
    ) ?? '';
  const sampleKeyMemoryUsage = sampleKey
    ? Number(await admin.memory('USAGE', sampleKey, 'SAMPLES', 0))
    : NaN;
  return {
    contender,
    clients,
    keysCreated,
    usedMemoryDelta: after.used - before.used,
    bytesPerClient: (after.used - before.used) / clients,
    clientBuffersDelta: after.clients - before.clients,
    instanceKeysDelta,
    stateBytesPerClient:
      (after.used - before.used - (after.clients - before.clients) - instanceKeysDelta) / clients,
    sampleKey,
    sampleKeyMemoryUsage,
  };
}

export async function runMemoryBench(
  contenders: Contenders,
  admin: Redis,
  clients: number,
  settleMs: number,
  log: (line: string) => void,
): Promise<MemoryRun[]> {
  const runs: MemoryRun[] = [];
  const cases: [string, (id: string) => Promise<unknown>][] = [
    ...RATE_LIMIT_ALGORITHMS.map((algo): [string, (id: string) => Promise<unknown>] => [
      `ours ${algo}`,
      (id) => contenders.service.consume(MEMORY_POLICY[algo], id),
    ]),
    ...(['fixed-window', 'gcra'] as const).map(
      (algo): [string, (id: string) => Promise<unknown>] => [
        `ours ${algo}, policy named '${SHORT_MEMORY_POLICY[algo]}'`,
        (id) => contenders.service.consume(SHORT_MEMORY_POLICY[algo], id),
      ],
    ),
    ['rate-limiter-flexible', (id) => contenders.rlfMemory.consume(id)],
    [
      '@nest-lab storage',
      (id) => contenders.nestLab.increment(id, HOUR_MS, MEMORY_LIMIT, HOUR_MS, 'default'),
    ],
  ];
  for (const [name, call] of cases) {
    const run = await measure(admin, name, clients, settleMs, call);
    runs.push(run);
    log(
      `memory ${name.padEnd(30)} ${run.bytesPerClient.toFixed(1)} B/client (used_memory), ` +
        `MEMORY USAGE ${run.sampleKeyMemoryUsage} B  ${run.sampleKey}`,
    );
  }
  return runs;
}
