import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { hostname } from 'node:os';
import type { RateLimitConfig } from '../../config/resolve-module-options';
import type { RateLimitVerdict } from '../../decision/rate-limit-decision.interface';
import type { DecisionObserver } from '../../engine/decision-observer';
import {
  BACKGROUND_TIMEOUT_MS,
  RATE_LIMIT_CONFIG,
  RATE_LIMIT_STORE,
} from '../../rate-limit.constants';
import type { RateLimitStore } from '../../store/rate-limit-store.interface';
import { RedisConnection } from '../../store/redis/redis-connection';
import { withTimeout } from '../../store/redis/with-timeout';
import { isWrongType } from '../../store/redis/wrong-type';
import { LIBRARY_VERSION } from '../../version';
import { InstanceHeartbeat } from '../instance-heartbeat.service';
import { TrafficRecorder } from '../traffic/traffic-recorder.service';
import type { InstanceView, InstancesView } from './instance-view';

/** An instance counts as on its fallback for this long after its last decision without Redis. */
const FALLBACK_RECENT_MS = 10_000;

/**
 * What each instance tells the dashboard about itself: a JSON string at
 * `<prefix>:instance:<id>`, written every stats flush interval and expiring with the heartbeat,
 * so the list is that of the live instances. Also an observer: a verdict made without Redis
 * (onRedisError) marks the instance as on its fallback.
 */
@Injectable()
export class InstanceStatus implements OnApplicationBootstrap, OnModuleDestroy, DecisionObserver {
  private readonly startedAt = Date.now();
  private fallbackAt = -Infinity;
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    private readonly connection: RedisConnection,
    private readonly heartbeat: InstanceHeartbeat,
    private readonly traffic: TrafficRecorder,
  ) {}

  observe(verdict: RateLimitVerdict): void {
    if (verdict.storeError) this.fallbackAt = Date.now();
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.connection.client) return;
    await this.report();
    this.timer = setInterval(() => void this.report(), this.config.statsFlushMs).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** This instance, now. */
  own(): InstanceView {
    const breaker = (this.store as { breaker?: { isOpen: boolean } }).breaker;
    const now = Date.now();
    return {
      id: this.heartbeat.id,
      host: hostname(),
      pid: process.pid,
      version: LIBRARY_VERSION,
      store: this.connection.client ? 'redis' : 'memory',
      breaker: breaker?.isOpen ? 'open' : 'closed',
      fallback: now - this.fallbackAt < FALLBACK_RECENT_MS,
      onRedisError: this.config.onRedisError,
      startedAt: this.startedAt,
      lastBeatAt: now,
      lastFlushAt: this.traffic.lastFlushAt,
    };
  }

  /** Every live instance as it last reported; this one alone when Redis cannot be read. */
  async list(): Promise<InstancesView> {
    const own = this.own();
    const client = this.connection.client;
    const alone = (redis: InstancesView['redis']): InstancesView => ({
      redis,
      self: own.id,
      instances: [{ ...own, self: true }],
    });
    if (!client) return alone('none');
    if (client.status !== 'ready') return alone('down');
    try {
      const ids = await withTimeout(
        client.zrange(this.heartbeat.key, '0', '-1'),
        BACKGROUND_TIMEOUT_MS,
      );
      const others = ids.filter((id) => id !== own.id);
      const reports = await withTimeout(
        // A key of another type (written by hand) is one report skipped, not Redis down.
        Promise.all(
          others.map((id) =>
            client.get(this.instanceKey(id)).catch((error: unknown) => {
              if (isWrongType(error)) return null;
              throw error;
            }),
          ),
        ),
        BACKGROUND_TIMEOUT_MS,
      );
      const instances = [own, ...reports.flatMap((json) => parseReport(json))]
        .sort((a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : 1))
        .map((view) => ({ ...view, self: view.id === own.id }));
      return { redis: 'up', self: own.id, instances };
    } catch {
      return alone('down');
    }
  }

  private async report(): Promise<void> {
    const client = this.connection.client;
    if (!client || client.status !== 'ready') return;
    await withTimeout(
      client.set(
        this.instanceKey(this.heartbeat.id),
        JSON.stringify(this.own()),
        'PX',
        this.heartbeat.aliveMs,
      ),
      BACKGROUND_TIMEOUT_MS,
    ).catch(() => undefined);
  }

  private instanceKey(id: string): string {
    return `${this.config.keys.prefix}:instance:${id}`;
  }
}

/** A report another instance wrote; anything else at its key (written by hand) is skipped. */
function parseReport(json: string | null): InstanceView[] {
  if (!json) return [];
  try {
    const view = JSON.parse(json) as InstanceView;
    return view && typeof view.id === 'string' && typeof view.startedAt === 'number' ? [view] : [];
  } catch {
    return [];
  }
}
