import type Redis from 'ioredis';

/**
 * The calls Redis counted per command since its last CONFIG RESETSTAT (INFO commandstats), read
 * once: `calls('fcall')`, `calls('function\\|load')` (a subcommand's `|` escaped); 0 for one
 * never called.
 */
export async function commandCounts(admin: Redis): Promise<(name: string) => number> {
  const stats = await admin.info('commandstats');
  return (name) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

/** Calls of the decide program however it ran: FCALL, EVALSHA or EVAL. */
export async function decideCalls(admin: Redis): Promise<number> {
  const calls = await commandCounts(admin);
  return calls('fcall') + calls('evalsha') + calls('eval');
}
