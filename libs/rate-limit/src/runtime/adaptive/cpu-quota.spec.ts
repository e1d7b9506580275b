import { cpuQuotaCores, parseCfsQuota, parseCpuMax } from './cpu-quota';

describe('cpuQuotaCores', () => {
  it('reads cgroup v2 cpu.max: a quota in CPUs, none for "max"', () => {
    expect(parseCpuMax('50000 100000\n')).toBe(0.5);
    expect(parseCpuMax('200000 100000')).toBe(2);
    expect(parseCpuMax('max 100000')).toBeUndefined();
    expect(parseCpuMax(undefined)).toBeUndefined();
    expect(parseCpuMax('garbage')).toBeUndefined();
  });

  it('reads cgroup v1 cfs quota and period; -1 is no quota', () => {
    expect(parseCfsQuota('150000\n', '100000\n')).toBe(1.5);
    expect(parseCfsQuota('-1', '100000')).toBeUndefined();
    expect(parseCfsQuota(undefined, '100000')).toBeUndefined();
  });

  it("finds the process's own cgroup (v2 first, then v1) and says none where there is none", () => {
    const files = (entries: Record<string, string>) => (path: string) => entries[path];
    expect(
      cpuQuotaCores(
        files({
          '/proc/self/cgroup': '0::/kubepods/pod1/c1\n',
          '/sys/fs/cgroup/kubepods/pod1/c1/cpu.max': '25000 100000',
        }),
      ),
    ).toBe(0.25);
    expect(
      cpuQuotaCores(
        files({
          '/proc/self/cgroup': '4:memory:/x\n2:cpu,cpuacct:/docker/abc\n0::/\n',
          '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '100000',
          '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000',
        }),
      ),
    ).toBe(1);
    expect(
      cpuQuotaCores(
        files({
          '/proc/self/cgroup': '1:cpu:/\n0::/\n',
          '/sys/fs/cgroup/cpu.max': 'max 100000',
          '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1',
          '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
        }),
      ),
    ).toBeUndefined();
  });
});
