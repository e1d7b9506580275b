import { InvalidCursorError } from '../../errors/invalid-cursor.error';
import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';
import type { RedisClient } from '../../store/redis/redis-script';
import { isScanCursor, refusedCursor } from '../../store/redis/scan-cursor';
import { withTimeout } from '../../store/redis/with-timeout';
import {
  parseRecord,
  type ClientOverrideIndex,
  type ClientOverridePage,
  type ClientOverrideRecord,
} from '../../runtime/client-overrides/client-override-index';

/** The index in a Redis hash per policy, `<prefix>:clients:<policy>`, listed by HSCAN. */
export class RedisClientOverrideIndex implements ClientOverrideIndex {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  async put(policy: string, tag: string, record: ClientOverrideRecord): Promise<void> {
    await withTimeout(
      this.client.hset(this.key(policy), tag, JSON.stringify(record)),
      BACKGROUND_TIMEOUT_MS,
    );
  }

  async remove(policy: string, tags: readonly string[]): Promise<void> {
    if (tags.length === 0) return;
    await withTimeout(this.client.hdel(this.key(policy), ...tags), BACKGROUND_TIMEOUT_MS);
  }

  async get(policy: string, tag: string): Promise<ClientOverrideRecord | undefined> {
    return parseRecord(
      await withTimeout(this.client.hget(this.key(policy), tag), BACKGROUND_TIMEOUT_MS),
    );
  }

  async count(policy: string): Promise<number> {
    return withTimeout(this.client.hlen(this.key(policy)), BACKGROUND_TIMEOUT_MS);
  }

  async page(policy: string, cursor: string | null, count: number): Promise<ClientOverridePage> {
    if (cursor !== null && !isScanCursor(cursor)) throw new InvalidCursorError();
    const [next, flat] = await withTimeout(
      this.client.hscan(this.key(policy), cursor ?? '0', 'COUNT', count).catch(refusedCursor),
      BACKGROUND_TIMEOUT_MS,
    );
    const records: [string, ClientOverrideRecord][] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const record = parseRecord(flat[i + 1]);
      if (record) records.push([flat[i], record]);
    }
    return { records, cursor: next === '0' ? null : next };
  }

  private key(policy: string): string {
    return `${this.prefix}:clients:${policy}`;
  }
}
