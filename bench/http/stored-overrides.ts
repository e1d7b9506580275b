/**
 * Keeps the client overrides an app wrote at bootstrap across the FLUSHALL before each of its
 * runs: copied (DUMP) once, after every app has started, and put back (RESTORE) by the
 * benchmark's own connection. The app does no work for it between runs, so what its runs
 * measure is the overrides being stored, not the aftermath of writing them (garbage, 10,000
 * announcements to handle).
 */
import type { Redis } from 'ioredis';

export interface StoredOverrides {
  /** Client override keys (`<prefix>:{<identity>}:<policy>:client`). */
  readonly clientKeys: number;
  readonly entries: readonly { key: string; dump: Buffer; pttl: number }[];
}

const BATCH = 1_000;

/** The override keys under `prefix` and their index (`<prefix>:clients:<policy>`). */
export async function copyOverrides(admin: Redis, prefix: string): Promise<StoredOverrides> {
  const keys: string[] = [];
  for await (const batch of admin.scanStream({ match: `${prefix}:*`, count: BATCH })) {
    for (const key of batch as string[]) {
      if (key.endsWith(':client') || key.startsWith(`${prefix}:clients:`)) keys.push(key);
    }
  }
  const entries: { key: string; dump: Buffer; pttl: number }[] = [];
  for (let i = 0; i < keys.length; i += BATCH) {
    const slice = keys.slice(i, i + BATCH);
    const pipeline = admin.pipeline();
    for (const key of slice) pipeline.dumpBuffer(key).pttl(key);
    const replies = (await pipeline.exec()) ?? [];
    slice.forEach((key, j) => {
      const [dumpError, dump] = replies[2 * j];
      const [, pttl] = replies[2 * j + 1];
      if (dumpError || !Buffer.isBuffer(dump)) throw new Error(`DUMP ${key} failed: ${dumpError}`);
      entries.push({ key, dump, pttl: Number(pttl) });
    });
  }
  return { clientKeys: keys.filter((k) => k.endsWith(':client')).length, entries };
}

export async function restoreOverrides(admin: Redis, stored: StoredOverrides): Promise<void> {
  for (let i = 0; i < stored.entries.length; i += BATCH) {
    const pipeline = admin.pipeline();
    for (const { key, dump, pttl } of stored.entries.slice(i, i + BATCH)) {
      pipeline.restore(key, pttl > 0 ? pttl : 0, dump, 'REPLACE');
    }
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
  }
}
