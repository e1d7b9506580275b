import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import type { Redis } from 'ioredis';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly kernel: string;
  readonly node: string;
  readonly redis: string;
  readonly loadAvgAtStart: readonly number[];
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) return line.split(':')[1].trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? 'unknown';
}

export async function describeMachine(admin: Redis): Promise<Machine> {
  const info = await admin.info('server');
  const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  const allocator = /mem_allocator:(\S+)/.exec(await admin.info('memory'))?.[1];
  return {
    cpu: cpuModel(),
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: `Linux ${release()}`,
    node: process.version,
    redis: allocator ? `${version} (${allocator})` : version,
    loadAvgAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
