import type { Redis } from 'ioredis';

/** Commands the benchmark itself sends between runs; not part of what is measured. */
const OWN = new Set(['info', 'config', 'flushall']);

export async function resetRedisStats(admin: Redis): Promise<void> {
  await admin.config('RESETSTAT');
}

/**
 * Microseconds Redis spent executing commands since the last reset (INFO commandstats), and
 * the same per command name. Divided by the operations of a run, it says how much of one
 * Redis core each decision costs.
 */
export async function redisCommandUsec(
  admin: Redis,
): Promise<{ total: number; byCommand: Record<string, number> }> {
  const byCommand: Record<string, number> = {};
  let total = 0;
  for (const line of (await admin.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (!m || OWN.has(m[1])) continue;
    byCommand[m[1]] = Number(m[3]);
    total += Number(m[3]);
  }
  return { total, byCommand };
}
