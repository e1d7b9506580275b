import { Inject, Injectable } from '@nestjs/common';
import type { RateLimitConfig } from '../../config/resolve-module-options';
import type { InstanceLoad } from '../../adaptive/fleet-pressure';
import { decodeLoad, type ReportedLoad } from '../../adaptive/load-codec';
import { AdaptiveUnavailableError } from '../../errors/adaptive-unavailable.error';
import { BACKGROUND_TIMEOUT_MS, RATE_LIMIT_CONFIG } from '../../rate-limit.constants';
import { RedisConnection } from '../../store/redis/redis-connection';
import type { RedisClient } from '../../store/redis/redis-script';
import { withTimeout } from '../../store/redis/with-timeout';
import { AdaptiveBeat } from './adaptive-beat';
import { AdaptiveLimits } from './adaptive-limits.service';

/** Longest freeze an operator can set: a day (a forgotten freeze ends on its own). */
export const MAX_FREEZE_MINUTES = 1_440;

/**
 * What operators do to adaptive protection's fleet loop (the admin API): freeze it, lift a
 * freeze, reset it. Each is written in Redis (`<prefix>:{adaptive}:controls`), and the leader
 * applies it at its next beat, whichever instance that is: so it reaches the whole fleet within
 * a second, and a new leader keeps it.
 */
@Injectable()
export class AdaptiveControls {
  private beatOf: AdaptiveBeat | undefined;

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly connection: RedisConnection,
    readonly limits: AdaptiveLimits,
  ) {}

  /** Made on first use: an application that never steers it reads no script for it. */
  private get beat(): AdaptiveBeat {
    return (this.beatOf ??= new AdaptiveBeat(this.config.keys.prefix));
  }

  /** Holds level and boost for `minutes` (null lifts a freeze); returns until when (Redis time). */
  async freeze(minutes: number | null): Promise<number | null> {
    const client = this.fleetClient();
    const until =
      minutes === null
        ? null
        : (await this.beat.redisNowMs(client, BACKGROUND_TIMEOUT_MS)) + minutes * 60_000;
    await this.beat.freeze(client, until, BACKGROUND_TIMEOUT_MS);
    return until;
  }

  /**
   * Every instance's last heartbeat load (pressure, its dominant signal, requests a second,
   * share limited by configured thresholds), newest report per instance; [] without Redis.
   */
  async instanceLoads(): Promise<(InstanceLoad & ReportedLoad)[]> {
    const client = this.connection.client;
    if (!this.limits.active || !client) return [];
    const stored = await withTimeout(client.hgetall(this.beat.keys.loads), BACKGROUND_TIMEOUT_MS);
    const loads: (InstanceLoad & ReportedLoad)[] = [];
    for (const [id, value] of Object.entries(stored)) {
      const comma = value.indexOf(',');
      const load = decodeLoad(id, Number(value.slice(0, comma)), value.slice(comma + 1));
      if (load) loads.push(load);
    }
    return loads.sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Every tier back to its configured thresholds at the leader's next beat. */
  async reset(): Promise<void> {
    await this.beat.reset(this.fleetClient(), BACKGROUND_TIMEOUT_MS);
  }

  private fleetClient(): RedisClient {
    if (!this.limits.active)
      throw new AdaptiveUnavailableError("Adaptive protection is off (the module's adaptive.mode)");
    const client = this.connection.client;
    if (!client)
      throw new AdaptiveUnavailableError(
        'Adaptive protection has no fleet loop without Redis: nothing to freeze or reset',
      );
    return client;
  }
}
