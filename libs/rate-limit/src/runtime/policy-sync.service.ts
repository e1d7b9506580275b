import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { PolicyOverride } from '../policy/policy-thresholds';
import type { RateLimitConfig } from '../config/resolve-module-options';
import {
  RATE_LIMIT_CHANNEL,
  RATE_LIMIT_CONFIG,
  RATE_LIMIT_OVERRIDES,
} from '../rate-limit.constants';
import { PolicyRegistry } from '../registry/policy-registry';
import { ChangeTrail } from './audit/change-trail';
import { auditedThresholds } from './audit/audited-thresholds';
import { HashWriteWatch } from './audit/hash-write-watch';
import { parseOverrideHash } from './policy-override-codec';
import type { PolicyChannel } from './policy-channel';
import type { PolicyOverrideStore } from './policy-override-store';

/** How long bootstrap waits for the Pub/Sub subscription before going on without it. */
const SUBSCRIBE_WAIT_MS = 1_000;

/**
 * Keeps every instance's in-memory policies in line with the overrides: applied at once when a
 * change is announced (admin API), and re-read every `policyRefreshMs` so hashes written with
 * redis-cli, missed messages and a Redis that lost its data are caught up with.
 */
@Injectable()
export class PolicySync implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly warned = new Set<string>();
  private readonly hashWrites = new HashWriteWatch();
  /** When a change of each policy was last announced (performance.now()). */
  private readonly announcedAt = new Map<string, number>();
  private running?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly registry: PolicyRegistry,
    @Inject(RATE_LIMIT_OVERRIDES) private readonly overrides: PolicyOverrideStore,
    @Inject(RATE_LIMIT_CHANNEL) private readonly channel: PolicyChannel,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly audit: ChangeTrail,
  ) {
    channel.onOverride((name, override) => {
      this.announcedAt.set(name, performance.now());
      this.apply(name, override);
      void this.confirm(name);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.channel.subscribe(SUBSCRIBE_WAIT_MS);
    await this.refresh();
    // A tick while a slow read (up to its 2 s timeout) is under way is skipped, not queued.
    this.timer = setInterval(() => {
      if (!this.running) void this.refresh();
    }, this.config.policyRefreshMs).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /**
   * Re-reads every override, with a read that begins after this call (after one under way, if
   * any: reads never overlap); on failure the policies in memory stay as they are.
   */
  async refresh(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.refreshOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async refreshOnce(): Promise<void> {
    const started = performance.now();
    let hashes: Map<string, Record<string, string> | Error>;
    try {
      hashes = await this.overrides.readAll(this.registry.names());
    } catch (error) {
      this.warnOnce('refresh', `Could not read policy overrides: ${(error as Error).message}`);
      return;
    }
    this.warned.delete('refresh');
    for (const [name, hash] of hashes) this.applyRead(name, hash, started, true);
  }

  /**
   * Reads back the hash of an announced change. Two changes made at once on two instances may
   * be announced in either order, and each message holds the hash as its sender read it: the
   * read that follows the last message sees both.
   */
  private async confirm(name: string): Promise<void> {
    const started = performance.now();
    let hash: Record<string, string> | Error | undefined;
    try {
      hash = (await this.overrides.readAll([name])).get(name);
    } catch {
      return; // the refresh interval catches up
    }
    if (hash) this.applyRead(name, hash, started);
  }

  /**
   * Applies an override read that began at `started`, warning once about what it ignores. What
   * a periodic refresh reads is also how a direct write into the hash reaches the audit log.
   */
  private applyRead(
    name: string,
    hash: Record<string, string> | Error,
    started: number,
    refreshed = false,
  ): void {
    // A change announced since the read began may be newer than the read: its own read follows.
    if ((this.announcedAt.get(name) ?? -Infinity) > started) return;
    if (hash instanceof Error) {
      this.warnOnce(`${name}:read`, `Could not read the override of "${name}": ${hash.message}`);
      return;
    }
    this.warned.delete(`${name}:read`);
    try {
      const { override, problems } = parseOverrideHash(hash);
      // Tiers are declared in code: fields of another tier are ignored, and said so.
      const declared = this.registry.declaredTiers(name);
      for (const tier of Object.keys(override?.tiers ?? {})) {
        if (!declared.has(tier))
          problems.push(`tier.${tier}.* (the policy declares no tier "${tier}")`);
      }
      if (problems.length > 0) {
        this.warnOnce(
          `${name}:${problems.join(',')}`,
          `Ignored invalid fields in the override of "${name}": ${problems.join(', ')}`,
        );
      }
      const thresholds = () => auditedThresholds(this.registry.effective(name)!);
      const watched = refreshed && this.audit.kept;
      const before = watched ? this.hashWrites.read(name, override, thresholds) : undefined;
      this.apply(name, override);
      if (before !== undefined) void this.audit.noticeStored(name, override, before, thresholds());
    } catch (error) {
      // Whatever an operator wrote, a refresh never takes the process down.
      this.warnOnce(
        `${name}:crash`,
        `Ignored the override of "${name}": ${(error as Error).message}`,
      );
    }
  }

  private apply(name: string, override: PolicyOverride | null): void {
    const problem = this.registry.applyOverride(name, override);
    if (problem)
      this.warnOnce(`${name}:${problem}`, `Ignored the override of "${name}": ${problem}`);
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(message);
  }
}
