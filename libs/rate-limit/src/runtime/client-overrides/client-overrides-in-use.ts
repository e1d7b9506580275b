import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { RateLimitConfig } from '../../config/resolve-module-options';
import {
  RATE_LIMIT_CHANNEL,
  RATE_LIMIT_CLIENT_OVERRIDES,
  RATE_LIMIT_CONFIG,
} from '../../rate-limit.constants';
import { PolicyRegistry } from '../../registry/policy-registry';
import type { PolicyChannel } from '../policy-channel';
import type { ClientOverrideIndex } from './client-override-index';

/**
 * Decisions read client override keys only once one is in use (KeyBuilder
 * clientOverridesInUse): this instance learns it at start, from the announcement of a set
 * (Pub/Sub, milliseconds), from a set of its own, or, should it miss the announcement, at the
 * next refresh. Once on, it stays on while the process runs.
 */
@Injectable()
export class ClientOverridesInUse implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly registry: PolicyRegistry,
    @Inject(RATE_LIMIT_CLIENT_OVERRIDES) private readonly index: ClientOverrideIndex,
    @Inject(RATE_LIMIT_CHANNEL) channel: PolicyChannel,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
  ) {
    channel.onClientOverride(() => this.mark());
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.discover();
    if (this.config.keys.clientOverridesInUse) return;
    this.timer = setInterval(() => void this.discover(), this.config.policyRefreshMs).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** From now on decisions read override keys (before the first override is written). */
  mark(): void {
    this.config.keys.clientOverridesInUse = true;
    clearInterval(this.timer);
  }

  private async discover(): Promise<void> {
    try {
      const counts = await Promise.all(this.registry.names().map((n) => this.index.count(n)));
      if (counts.some((n) => n > 0)) this.mark();
    } catch {
      // Redis unreachable: the next refresh asks again.
    }
  }
}
