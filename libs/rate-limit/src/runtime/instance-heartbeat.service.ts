import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { RateLimitMetrics } from '../metrics/rate-limit-metrics';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import { readLuaFile } from '../store/redis/lua-file';
import { RedisConnection } from '../store/redis/redis-connection';
import { RedisScript } from '../store/redis/redis-script';
import { withTimeout } from '../store/redis/with-timeout';
import type { InstanceStanding, StandingSource } from '../engine/instance-standing';

/** An instance that missed this many heartbeats in a row no longer counts as alive. */
const MISSED_BEATS = 3;
const MIN_ALIVE_MS = 2_000;
const LEAVE_TIMEOUT_MS = 500;

/**
 * Tells Redis this instance is alive, every `statsFlushMs` (the stats flush interval), and
 * keeps the answer: how many instances are alive and which of them this one is. When Redis
 * becomes unreachable the last answer stays, so the memory fallback shares each limit among the
 * instances that were alive just before. Heartbeats never go through the request path's breaker
 * or timeout: a slow heartbeat costs requests nothing.
 */
@Injectable()
export class InstanceHeartbeat implements OnApplicationBootstrap, OnModuleDestroy, StandingSource {
  readonly id = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  private standingNow: InstanceStanding = { instances: 1, rank: 0 };
  private timer?: NodeJS.Timeout;
  private readonly script = new RedisScript('heartbeat', readLuaFile('heartbeat'));
  /** How long an instance counts as alive after its last heartbeat. */
  readonly aliveMs: number;

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly connection: RedisConnection,
    private readonly metrics: RateLimitMetrics,
  ) {
    this.aliveMs = Math.max(MIN_ALIVE_MS, MISSED_BEATS * config.statsFlushMs);
    metrics.setLiveInstances(1);
  }

  get standing(): InstanceStanding {
    return this.standingNow;
  }

  /**
   * The first beat is awaited, so an instance knows its share before it serves a request. Only
   * the outage share reads the standing: with onRedisError 'open' or 'closed', or a fixed
   * `fallbackShare`, there is nothing to beat for.
   */
  async onApplicationBootstrap(): Promise<void> {
    const { onRedisError, fallbackShare } = this.config;
    if (!this.connection.client || onRedisError !== 'memory' || fallbackShare !== undefined) return;
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.config.statsFlushMs).unref();
  }

  /** Leaves the set at once on a clean shutdown, so the others' shares grow without waiting. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    const client = this.connection.client;
    if (!client || client.status !== 'ready') return;
    await withTimeout(client.zrem(this.key, this.id), LEAVE_TIMEOUT_MS).catch(() => undefined);
  }

  /** One heartbeat; on failure the last standing is kept (Redis may be down: that is the point). */
  async beat(): Promise<void> {
    const client = this.connection.client;
    if (!client || client.status !== 'ready') return;
    try {
      const reply = await this.script.run(client, [this.key], [this.id, this.aliveMs], (r) =>
        withTimeout(r, this.aliveMs),
      );
      const ids = (reply as string[]).slice().sort();
      const rank = ids.indexOf(this.id);
      if (rank === -1) return;
      const { instances, rank: known } = this.standingNow;
      // Replaced only on a change: users cache what they derive from it by its identity.
      if (instances !== ids.length || known !== rank) {
        this.standingNow = { instances: ids.length, rank };
        this.metrics.setLiveInstances(ids.length);
      }
    } catch {
      // Kept as it was: the request path reports Redis failures.
    }
  }

  /** The sorted set of live instances (`<prefix>:instances`). */
  get key(): string {
    return `${this.config.keys.prefix}:instances`;
  }
}
