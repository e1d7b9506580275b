import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { isCluster } from '../../util/ioredis-shapes';
import type { PolicyOverride } from '../../policy/policy-thresholds';
import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';
import { closeClient, DISCONNECT_WAIT_MS } from '../../store/redis/close-client';
import type { RedisClient } from '../../store/redis/redis-script';
import { withTimeout } from '../../store/redis/with-timeout';
import {
  ChannelListeners,
  policyChannelName,
  type PolicyChannel,
} from '../../runtime/policy-channel';
import { encodeOverride, parseOverrideHash } from '../../runtime/policy-override-codec';

interface ChangeMessage {
  name: string;
  /** The fleet loop's published state (adaptive-publish.lua), in a message of its own. */
  adaptive?: string;
  override?: PolicyOverride | null;
  reset?: true;
  /** A client override of the identities of `tags` was set or removed. */
  client?: true;
  /** The key tags of the identities reset (or whose client override changed). */
  tags?: string[];
}

/**
 * Announcements on `<prefix>:policy-changes`, each holding what changed (the new override, or
 * the reset identities), so other instances act without another round trip. Listening uses a
 * connection of its own (a subscribed connection can run no other command).
 */
export class RedisPolicyChannel extends ChannelListeners implements PolicyChannel, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private subscriber?: RedisClient;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {
    super();
  }

  private get channel(): string {
    return policyChannelName(this.prefix);
  }

  async subscribe(waitMs: number): Promise<void> {
    // Unlike the request path, the subscriber may queue while (re)connecting: it never blocks a
    // request. Closed by the limiter even when the client is the application's: its wait too.
    const queueing = {
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      disconnectTimeout: DISCONNECT_WAIT_MS,
    };
    const subscriber = isCluster(this.client)
      ? this.client.duplicate([], { enableOfflineQueue: true, redisOptions: queueing })
      : this.resubscribing(this.client.duplicate({ ...queueing, autoResubscribe: false }));
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, raw: string) => this.received(raw));
    const subscribed = (subscriber as Redis).subscribe(this.channel).then(() => undefined);
    await withTimeout(subscribed, waitMs).catch((error: Error) => {
      this.logger.warn(
        `Not yet subscribed to ${this.channel} (${error.message}); relying on the refresh interval until then`,
      );
    });
  }

  /**
   * Subscribes `subscriber` again after each reconnect. ioredis would, with a promise nobody
   * handles: a shutdown while that SUBSCRIBE waits on a stalled Redis rejected it unhandled, out
   * of the library. (A Cluster's subscriber connection is ioredis's own: left to it.)
   */
  private resubscribing(subscriber: Redis): Redis {
    let lost = false;
    subscriber.on('close', () => (lost = true));
    subscriber.on('ready', () => {
      if (!lost) return;
      lost = false;
      subscriber.subscribe(this.channel).catch((error: Error) => {
        // The client closed meanwhile (a shutdown): expected, and nothing to subscribe to.
        if (subscriber.status === 'end') return;
        this.logger.warn(
          `Could not subscribe again to ${this.channel} (${error.message}); relying on the refresh interval until the next reconnect`,
        );
      });
    });
    return subscriber;
  }

  announceOverride(name: string, override: PolicyOverride | null): Promise<void> {
    return this.publish({ name, override });
  }

  announceReset(name: string, tags: readonly string[]): Promise<void> {
    return this.publish({ name, reset: true, tags: [...tags] });
  }

  announceClientOverride(name: string, tags: readonly string[]): Promise<void> {
    return this.publish({ name, client: true, tags: [...tags] });
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await closeClient(subscriber);
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  /** A failure is logged, not thrown: the change stands (see PolicyChannel). */
  private async publish(message: ChangeMessage): Promise<void> {
    try {
      await withTimeout(
        this.client.publish(this.channel, JSON.stringify(message)),
        BACKGROUND_TIMEOUT_MS,
      );
    } catch (error) {
      this.logger.warn(
        `Could not announce the change of policy "${message.name}" on ${this.channel} ` +
          `(${(error as Error).message}); it is written: ` +
          (message.reset || message.client
            ? 'other instances forget what they remember of the identities when it expires'
            : 'other instances apply it at their next refresh'),
      );
    }
  }

  private received(raw: string): void {
    try {
      const message = JSON.parse(raw) as ChangeMessage;
      if (typeof message.adaptive === 'string') {
        this.deliverAdaptiveState(message.adaptive);
        return;
      }
      if (typeof message.name !== 'string') return;
      const tags = Array.isArray(message.tags) ? message.tags.filter(isString) : [];
      if (message.reset) {
        this.deliverReset(message.name, tags);
        return;
      }
      if (message.client) {
        this.deliverClientOverride(message.name, tags);
        return;
      }
      const override =
        message.override && parseOverrideHash(encodeOverride(message.override)).override;
      this.deliverOverride(message.name, override ?? null);
    } catch {
      this.logger.warn(`Ignored a malformed message on ${this.channel}`);
    }
  }
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
