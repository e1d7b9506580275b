import { isReplyError } from '../../util/ioredis-shapes';
import { withTimeout } from '../../store/redis/with-timeout';
import type { PolicyOverride } from '../../policy/policy-thresholds';
import { StoredKeyConflictError } from '../../errors/stored-key-conflict.error';
import type { RedisClient } from '../../store/redis/redis-script';
import { encodeOverride, parseOverrideHash } from '../../runtime/policy-override-codec';
import type { KeyBuilder } from '../../keys/key-builder';
import type { PolicyChannel } from '../../runtime/policy-channel';
import type { PolicyOverrideStore } from '../../runtime/policy-override-store';
import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';

/**
 * Overrides in Redis hashes `<prefix>:policy:<name>`; each write is announced on the
 * PolicyChannel with the new override, so other instances apply it without another read.
 */
export class RedisPolicyOverrideStore implements PolicyOverrideStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: KeyBuilder,
    private readonly channel: PolicyChannel,
  ) {}

  async readAll(names: readonly string[]): Promise<Map<string, Record<string, string> | Error>> {
    // One HGETALL per key: on a cluster the hashes live in different slots. A key of another
    // type fails alone; a Redis that does not answer fails the whole read.
    const hashes = await withTimeout(
      Promise.all(
        names.map((name) =>
          this.client.hgetall(this.keys.policyKey(name)).catch((error: unknown) => {
            if (isReplyError(error)) return error as Error;
            throw error;
          }),
        ),
      ),
      BACKGROUND_TIMEOUT_MS,
    );
    return new Map(names.map((name, i) => [name, hashes[i]]));
  }

  async update(
    name: string,
    fields: PolicyOverride,
    removed: readonly string[] = [],
  ): Promise<PolicyOverride | null> {
    const key = this.keys.policyKey(name);
    // HSET of the changed fields only: a field another instance or redis-cli set meanwhile stays.
    const write = this.client.multi().hset(key, encodeOverride(fields));
    if (removed.length > 0) write.hdel(key, ...removed);
    const replies = await withTimeout(write.hgetall(key).exec(), BACKGROUND_TIMEOUT_MS);
    const failed = replies?.find(([error]) => error);
    const error: unknown = failed?.[0];
    if (isReplyError(error) && /^WRONGTYPE/.test((error as Error).message)) {
      throw new StoredKeyConflictError(key, 'a hash');
    }
    if (!replies || failed) throw failed?.[0] ?? new Error('the update was discarded');
    const { override } = parseOverrideHash(replies.at(-1)![1] as Record<string, string>);
    await this.channel.announceOverride(name, override);
    return override;
  }

  async clear(name: string): Promise<void> {
    await withTimeout(this.client.del(this.keys.policyKey(name)), BACKGROUND_TIMEOUT_MS);
    await this.channel.announceOverride(name, null);
  }
}
