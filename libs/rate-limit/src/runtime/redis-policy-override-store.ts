import { Logger } from '@nestjs/common';
import { Cluster, type Redis, ReplyError } from 'ioredis';
import { closeClient } from '../store/redis/close-client';
import { withTimeout } from '../store/redis/with-timeout';
import type { PolicyOverride } from '../admin/policy-view.interface';
import { StoredKeyConflictError } from '../errors/stored-key-conflict.error';
import type { RedisClient } from '../store/redis/redis-script';
import { encodeOverride, parseOverrideHash } from './policy-override-codec';
import type { OverrideListener, PolicyOverrideStore, ResetListener } from './policy-override-store';

/** Operator actions and background reads may wait longer than a request decision. */
const ADMIN_TIMEOUT_MS = 2_000;

interface ChangeMessage {
  name: string;
  override?: PolicyOverride | null;
  reset?: true;
  /** The key tags of the identities reset (absent in messages of earlier builds: all of them). */
  tags?: string[];
}

/**
 * Overrides in Redis hashes, announced on `<prefix>:policy-changes` with the new override in the
 * message, so other instances apply it without another round trip. A separate subscriber
 * connection is used (a subscribed connection can run no other command).
 */
export class RedisPolicyOverrideStore implements PolicyOverrideStore {
  private readonly logger = new Logger('RateLimit');
  private subscriber?: RedisClient;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  private get channel(): string {
    return `${this.prefix}:policy-changes`;
  }

  hashKey(name: string): string {
    return `${this.prefix}:policy:${name}`;
  }

  async readAll(names: readonly string[]): Promise<Map<string, Record<string, string> | Error>> {
    // One HGETALL per key: on a cluster the hashes live in different slots. A key of another
    // type fails alone; a Redis that does not answer fails the whole read.
    const hashes = await withTimeout(
      Promise.all(
        names.map((name) =>
          this.client.hgetall(this.hashKey(name)).catch((error: unknown) => {
            if (error instanceof ReplyError) return error as Error;
            throw error;
          }),
        ),
      ),
      ADMIN_TIMEOUT_MS,
    );
    return new Map(names.map((name, i) => [name, hashes[i]]));
  }

  async update(name: string, fields: PolicyOverride): Promise<PolicyOverride | null> {
    const key = this.hashKey(name);
    // HSET of the changed fields only: a field another instance or redis-cli set meanwhile stays.
    const replies = await withTimeout(
      this.client.multi().hset(key, encodeOverride(fields)).hgetall(key).exec(),
      ADMIN_TIMEOUT_MS,
    );
    const failed = replies?.find(([error]) => error);
    const error: unknown = failed?.[0];
    if (error instanceof ReplyError && /^WRONGTYPE/.test((error as Error).message)) {
      throw new StoredKeyConflictError(key, 'a hash');
    }
    if (!replies || failed) throw failed?.[0] ?? new Error('the update was discarded');
    const { override } = parseOverrideHash(replies[1][1] as Record<string, string>);
    await this.publish({ name, override });
    return override;
  }

  async clear(name: string): Promise<void> {
    await withTimeout(this.client.del(this.hashKey(name)), ADMIN_TIMEOUT_MS);
    await this.publish({ name, override: null });
  }

  async subscribe(
    listener: OverrideListener,
    waitMs: number,
    onReset?: ResetListener,
  ): Promise<void> {
    // Unlike the request path, the subscriber may queue while (re)connecting: it never blocks a request.
    const queueing = { enableOfflineQueue: true, maxRetriesPerRequest: null };
    const subscriber =
      this.client instanceof Cluster
        ? this.client.duplicate([], { enableOfflineQueue: true, redisOptions: queueing })
        : this.client.duplicate(queueing);
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, raw: string) =>
      this.onMessage(raw, listener, onReset),
    );
    const subscribed = (subscriber as Redis).subscribe(this.channel).then(() => undefined);
    await withTimeout(subscribed, waitMs).catch((error: Error) => {
      this.logger.warn(
        `Not yet subscribed to ${this.channel} (${error.message}); relying on the refresh interval until then`,
      );
    });
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await closeClient(subscriber);
  }

  async announceReset(name: string, tags: readonly string[]): Promise<void> {
    await this.publish({ name, reset: true, tags: [...tags] });
  }

  /**
   * Announces a change already written: a failure here is logged, not thrown, since the change
   * stands (the caller must not answer "nothing was changed") and the refresh spreads it.
   */
  private async publish(message: ChangeMessage): Promise<void> {
    try {
      await withTimeout(
        this.client.publish(this.channel, JSON.stringify(message)),
        ADMIN_TIMEOUT_MS,
      );
    } catch (error) {
      this.logger.warn(
        `Could not announce the change of policy "${message.name}" on ${this.channel} ` +
          `(${(error as Error).message}); it is written: ` +
          (message.reset
            ? 'other instances forget what they remember of the identities when it expires'
            : 'other instances apply it at their next refresh'),
      );
    }
  }

  private onMessage(raw: string, listener: OverrideListener, onReset?: ResetListener): void {
    try {
      const message = JSON.parse(raw) as ChangeMessage;
      if (typeof message.name !== 'string') return;
      if (message.reset) {
        const tags = Array.isArray(message.tags) ? message.tags.filter(isString) : [];
        return onReset?.(message.name, tags);
      }
      const override =
        message.override && parseOverrideHash(encodeOverride(message.override)).override;
      listener(message.name, override ?? null);
    } catch {
      this.logger.warn(`Ignored a malformed message on ${this.channel}`);
    }
  }
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
