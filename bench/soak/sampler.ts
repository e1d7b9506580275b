/** One row of the soak's time series: traffic, each instance's memory, Redis memory and keys. */
import type { Redis } from 'ioredis';
import { type CpuMeter, machineBusySec, processCpuSec } from './cpu';
import { type Instance, type InstanceStats, instanceStats } from './demo-instances';
import type { Generator } from './generator-handle';
import type { RedisProbe } from './redis-probe';

export interface Sample {
  /** Seconds since the traffic started. */
  readonly t: number;
  readonly reqPerSec: number;
  readonly okPerSec: number;
  readonly limitedPerSec: number;
  readonly errorsPerSec: number;
  readonly errors: Record<string, number>;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly identitiesSeen: number;
  /** Found by the over-admission check in this interval. */
  readonly overAdmissions: number;
  readonly instances: readonly InstanceStats[];
  readonly usedMemory: number;
  readonly usedMemoryRss: number;
  readonly dbsize: number;
  readonly clientKeys: number;
  /** Cores used over the interval: machine, A, B, generator, redis, soak (this process), others. */
  readonly cpu: Record<string, number>;
  readonly pingMaxMs: number;
  readonly pingsOver100Ms: number;
}

export interface SampleSources {
  readonly generator: Generator;
  readonly instances: readonly Instance[];
  readonly redis: Redis;
  readonly prefix: string;
  readonly cpu: CpuMeter;
  readonly probe: RedisProbe;
}

/** Keys matching `match`, by SCAN: unlike DBSIZE, it skips keys expired but not yet collected. */
export async function countKeys(redis: Redis, match: string): Promise<number> {
  let cursor = '0';
  let count = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    count += keys.length;
  } while (cursor !== '0');
  return count;
}

function infoField(info: string, name: string): number {
  return Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1]);
}

/** CPU readings first, all together, so that every process is measured over the same interval. */
function cpuReadings(sources: SampleSources, redisCpuInfo: string): Record<string, number> {
  const own = process.cpuUsage();
  const readings: Record<string, number> = {
    machine: machineBusySec(),
    generator: processCpuSec(sources.generator.pid),
    redis: infoField(redisCpuInfo, 'used_cpu_sys') + infoField(redisCpuInfo, 'used_cpu_user'),
    soak: (own.user + own.system) / 1e6,
  };
  for (const i of sources.instances) readings[i.name] = processCpuSec(i.pid);
  return readings;
}

/** Takes the CPU baseline that the first sample is measured against. */
export async function primeCpu(sources: SampleSources): Promise<void> {
  sources.cpu.cores(cpuReadings(sources, await sources.redis.info('cpu')));
}

export async function takeSample(t: number, sources: SampleSources): Promise<Sample> {
  const { redis, instances } = sources;
  const [load, cpuInfo] = await Promise.all([sources.generator.sample(), redis.info('cpu')]);
  const cpu = sources.cpu.cores(cpuReadings(sources, cpuInfo));
  const ours = Object.entries(cpu).filter(([name]) => name !== 'machine');
  cpu.others = cpu.machine - ours.reduce((sum, [, cores]) => sum + cores, 0);
  const ping = sources.probe.take();
  const [stats, memoryInfo, dbsize, clientKeys] = await Promise.all([
    Promise.all(instances.map(instanceStats)),
    redis.info('memory'),
    redis.dbsize(),
    countKeys(redis, `${sources.prefix}:{*`),
  ]);
  const perSec = (n: number) => (n * 1000) / load.intervalMs;
  const errors = Object.values(load.errors).reduce((a, b) => a + b, 0);
  return {
    t,
    reqPerSec: perSec(load.responses + errors),
    okPerSec: perSec(load.ok),
    limitedPerSec: perSec(load.limited),
    errorsPerSec: perSec(errors),
    errors: load.errors,
    latencyP50Ms: load.latencyP50Ms,
    latencyP99Ms: load.latencyP99Ms,
    identitiesSeen: load.identitiesSeen,
    overAdmissions: load.overAdmissions,
    instances: stats,
    usedMemory: infoField(memoryInfo, 'used_memory'),
    usedMemoryRss: infoField(memoryInfo, 'used_memory_rss'),
    dbsize,
    clientKeys,
    cpu,
    pingMaxMs: ping.maxMs,
    pingsOver100Ms: ping.over100,
  };
}
