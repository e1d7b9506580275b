import { readFileSync } from 'node:fs';
import { posix } from 'node:path';

/**
 * How many CPUs this process may use by its cgroup's quota, or undefined when it has none (then
 * CPU is not a signal: host load is someone else's, and `os.availableParallelism()` ignores
 * quotas under one CPU). cgroup v2 (`cpu.max`) first, then v1 (`cpu.cfs_quota_us`).
 */
export function cpuQuotaCores(
  read: (path: string) => string | undefined = readText,
): number | undefined {
  const groups = read('/proc/self/cgroup') ?? '';
  const v2 = /^0::(.*)$/m.exec(groups)?.[1];
  const v1 = /^\d+:[^:]*\bcpu\b[^:]*:(.*)$/m.exec(groups)?.[1];
  const candidates: (() => number | undefined)[] = [
    () =>
      v2 === undefined ? undefined : parseCpuMax(read(posix.join('/sys/fs/cgroup', v2, 'cpu.max'))),
    () => parseCpuMax(read('/sys/fs/cgroup/cpu.max')),
    ...[v1, '/'].flatMap((path) =>
      path === undefined
        ? []
        : ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct'].map(
            (root) => () =>
              parseCfsQuota(
                read(posix.join(root, path, 'cpu.cfs_quota_us')),
                read(posix.join(root, path, 'cpu.cfs_period_us')),
              ),
          ),
    ),
  ];
  for (const candidate of candidates) {
    const cores = candidate();
    if (cores !== undefined) return cores;
  }
  return undefined;
}

/** `cpu.max` of cgroup v2: "<quota> <period>" in µs, or "max <period>" without a quota. */
export function parseCpuMax(text: string | undefined): number | undefined {
  const [quota, period] = (text ?? '').trim().split(/\s+/);
  return cores(quota, period);
}

/** cgroup v1: `cpu.cfs_quota_us` (-1 without a quota) and `cpu.cfs_period_us`. */
export function parseCfsQuota(
  quota: string | undefined,
  period: string | undefined,
): number | undefined {
  return cores(quota?.trim(), period?.trim());
}

function cores(quota: string | undefined, period: string | undefined): number | undefined {
  const q = Number(quota);
  const p = Number(period);
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return undefined;
  return q / p;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
