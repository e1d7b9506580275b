import {
  BadRequestException,
  ConflictException,
  GatewayTimeoutException,
  Inject,
  Injectable,
  NotFoundException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { RateLimitStoreError } from '../errors/rate-limit-store.error';
import { StoredKeyConflictError } from '../errors/stored-key-conflict.error';
import type { RateLimitConfig } from '../module/resolve-module-options';
import { capacityOf } from '../policy/rate-limit-algorithm';
import { thresholdProblem } from '../policy/threshold-problem';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { RATE_LIMIT_CONFIG, RATE_LIMIT_OVERRIDES, RATE_LIMIT_STORE } from '../rate-limit.constants';
import { PolicyRegistry } from '../registry/policy-registry';
import { parseOverrideHash } from '../runtime/policy-override-codec';
import type { PolicyOverrideStore } from '../runtime/policy-override-store';
import { PolicyStats } from '../runtime/policy-stats.service';
import { RateLimiterService } from '../service/rate-limiter.service';
import type { RateLimitStore } from '../store/rate-limit-store.interface';
import type {
  KeyUsagePage,
  PolicyPatch,
  PolicyThresholds,
  PolicyView,
} from './policy-view.interface';
import { routesOf } from './route-paths';

/** Cursors each store gives out: `<master>:<SCAN cursor>` from Redis, an offset from memory. */
const CURSOR = { redis: /^\d{1,4}:\d{1,20}$/, memory: /^\d{1,15}$/ } as const;
const BAD_CURSOR = 'cursor must be a value returned by a previous page';

/**
 * What the admin API does, independent of HTTP: list and change policies, show and reset
 * per-identity usage. Unknown policy: NotFoundException; Redis unreachable: 503.
 * @publicApi
 */
@Injectable()
export class RateLimitAdminService {
  constructor(
    private readonly registry: PolicyRegistry,
    private readonly stats: PolicyStats,
    private readonly limiter: RateLimiterService,
    @Inject(RATE_LIMIT_OVERRIDES) private readonly overrides: PolicyOverrideStore,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly appConfig: ApplicationConfig,
  ) {}

  async list(): Promise<PolicyView[]> {
    const names = this.registry.names().sort();
    const totals = await this.unavailableOnError(() => this.stats.totals(names));
    return names.map((name) => this.view(name, totals.get(name)!));
  }

  async get(name: string): Promise<PolicyView> {
    this.known(name);
    const totals = await this.unavailableOnError(() => this.stats.totals([name]));
    return this.view(name, totals.get(name)!);
  }

  /** Sets the changed fields of the override and announces the result to every instance. */
  async update(name: string, patch: PolicyPatch): Promise<PolicyView> {
    this.known(name);
    // Checked as a whole, on the override as stored now (another instance or redis-cli may have
    // changed it since this one last read it), before anything is written.
    const stored = await this.unavailableOnError(() => this.overrides.readAll([name]));
    const hash = stored.get(name);
    if (hash instanceof Error) {
      throw new ConflictException(
        new StoredKeyConflictError(`${this.config.keys.prefix}:policy:${name}`, 'a hash').message,
      );
    }
    const current = hash ? parseOverrideHash(hash).override : null;
    const result = this.registry.preview(name, { ...current, ...patch });
    const problem = result && thresholdProblem(result);
    if (problem) throw new BadRequestException([problem]);
    const fields = { ...patch, updatedAt: Date.now() };
    const override = await this.unavailableOnError(() => this.overrides.update(name, fields), true);
    this.registry.applyOverride(name, override);
    return this.get(name);
  }

  async clearOverride(name: string): Promise<PolicyView> {
    this.known(name);
    await this.unavailableOnError(() => this.overrides.clear(name), true);
    this.registry.applyOverride(name, null);
    return this.get(name);
  }

  /**
   * Live usage per identity under the policy's current algorithm, a SCAN page at a time: every
   * identity with state, and every identity still blocked (`blockFor`) whose state has expired.
   */
  async keys(name: string, cursor: string | undefined, count: number): Promise<KeyUsagePage> {
    const policy = this.known(name);
    // `0` is where every SCAN starts, so it is the first page too (as no cursor).
    const from = cursor === undefined || cursor === '' || cursor === '0' ? null : cursor;
    if (from !== null && !CURSOR[this.store.kind].test(from)) {
      throw new BadRequestException(BAD_CURSOR);
    }
    const stateSuffix = `}:${policy.name}:${policy.algo}`;
    const blockSuffix = `${stateSuffix}:block`;
    // One pattern for both kinds of key; it also matches other algorithms whose name starts with
    // this one's (sliding-window-counter), which the suffix test drops.
    const match = `${this.config.keys.prefix}:{*${stateSuffix}*`;
    const page = await this.unavailableOnError(async () => {
      try {
        return await this.store.scan(match, from, count);
      } catch (error) {
        // Well-formed but not one Redis gave out (past 2^64): Redis refuses it.
        if (/invalid cursor/i.test((error as Error).message)) {
          throw new BadRequestException(BAD_CURSOR);
        }
        throw error;
      }
    });
    const tags = await this.unavailableOnError(() =>
      this.listedTags(page.keys, stateSuffix, blockSuffix),
    );
    const decisions = await this.unavailableOnError(() => this.limiter.peekTags(policy, tags));
    const capacity = capacityOf(policy);
    // A key Redis could not read (another type, written by hand) is left out of the page.
    const items = decisions.flatMap((d, i) =>
      d
        ? [
            {
              identity: this.config.keys.listedIdentity(tags[i]),
              used: Math.max(0, capacity - d.remaining),
              remaining: d.remaining,
              resetMs: d.resetMs,
              blockedMs: d.reason === 'blocked' ? d.retryAfterMs : 0,
            },
          ]
        : [],
    );
    return { items, cursor: page.cursor };
  }

  /**
   * The tags a page of keys lists, each once: the identity of a state key, and of a block key
   * whose state key is gone (while both exist, the state key lists it, on whichever page).
   */
  private async listedTags(
    keys: readonly string[],
    stateSuffix: string,
    blockSuffix: string,
  ): Promise<string[]> {
    const tagOf = (key: string) => this.config.keys.tagOfKey(key);
    const stateTags = keys.filter((key) => key.endsWith(stateSuffix)).map(tagOf);
    const withState = new Set(stateTags);
    const blockKeys = keys.filter((key) => key.endsWith(blockSuffix) && !withState.has(tagOf(key)));
    const stateExists = await this.store.existing(
      blockKeys.map((key) => key.slice(0, -':block'.length)),
    );
    const blockedOnly = blockKeys.filter((_, i) => !stateExists[i]).map(tagOf);
    return [...new Set([...stateTags, ...blockedOnly])];
  }

  async resetKey(name: string, identity: string): Promise<void> {
    this.known(name);
    await this.unavailableOnError(() => this.limiter.resetListed(name, identity), true);
  }

  private known(name: string): RateLimitPolicy {
    const policy = this.registry.get(name);
    if (!policy) throw new NotFoundException(`Unknown rate limit policy "${name}"`);
    return policy;
  }

  private view(name: string, stats: PolicyView['stats']): PolicyView {
    const effective = this.registry.get(name)!;
    return {
      name,
      ...thresholds(effective),
      routes: routesOf(this.registry.usages(name), {
        globalPrefix: this.appConfig.getGlobalPrefix(),
        versioning: this.appConfig.getVersioning(),
      }),
      defaults: thresholds(this.registry.defaults(name)!),
      override: this.registry.override(name),
      stats,
    };
  }

  /**
   * 503 when Redis is unreachable and nothing was written. A write that timed out may still
   * apply (Redis runs a command it received), so it answers 504 instead of "nothing changed".
   */
  private async unavailableOnError<T>(action: () => Promise<T>, writes = false): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (error instanceof BadRequestException) throw error;
      if (writes && error instanceof RateLimitStoreError && error.failure === 'timeout') {
        throw new GatewayTimeoutException(
          `${error.message}: the change may or may not have been applied; read it back to see`,
        );
      }
      if (error instanceof StoredKeyConflictError) throw new ConflictException(error.message);
      throw new ServiceUnavailableException(`Redis is unavailable: ${(error as Error).message}`);
    }
  }
}

function thresholds(policy: RateLimitPolicy): PolicyThresholds {
  const { algo, limit, windowMs, burst, mode, enabled } = policy;
  return { algo, limit, windowMs, burst, mode, enabled };
}
