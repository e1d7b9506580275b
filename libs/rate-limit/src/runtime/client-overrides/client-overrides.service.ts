import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RateLimitConfig } from '../../config/resolve-module-options';
import { DecisionEngine } from '../../engine/decision-engine';
import { InvalidPolicyChangeError } from '../../errors/invalid-policy-change.error';
import { UncertainWriteError } from '../../errors/uncertain-write.error';
import type { ClientOverride } from '../../policy/client-override';
import {
  RATE_LIMIT_CHANNEL,
  RATE_LIMIT_CLIENT_OVERRIDES,
  RATE_LIMIT_CONFIG,
  RATE_LIMIT_STORE,
} from '../../rate-limit.constants';
import { PolicyRegistry } from '../../registry/policy-registry';
import { encodeClientOverride } from '../../store/client-override-value';
import type { RateLimitStore } from '../../store/rate-limit-store.interface';
import { ChangeTrail } from '../audit/change-trail';
import type { PolicyChannel } from '../policy-channel';
import type { ClientOverrideIndex, ClientOverrideRecord } from './client-override-index';
import { clientOverrideProblems } from './client-override-problems';
import { auditedOverride, withoutUndefined } from './override-record';
import { ClientOverridesInUse } from './client-overrides-in-use';

export interface ClientOverrideList {
  readonly items: ClientOverrideRecord[];
  readonly cursor: string | null;
}

/**
 * Per-client overrides of a policy: written at the client's own key, which every decision reads
 * in its one script call (so they apply on every instance at once and expire by themselves),
 * listed in an index for operators, and announced so that every instance forgets rejections it
 * remembers of that client. Identities are taken raw or as the admin API lists them.
 */
@Injectable()
export class ClientOverrides {
  private readonly logger = new Logger('RateLimit');

  constructor(
    private readonly registry: PolicyRegistry,
    private readonly engine: DecisionEngine,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(RATE_LIMIT_CLIENT_OVERRIDES) private readonly index: ClientOverrideIndex,
    @Inject(RATE_LIMIT_CHANNEL) private readonly channel: PolicyChannel,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly inUse: ClientOverridesInUse,
    private readonly audit: ChangeTrail,
  ) {
    channel.onClientOverride(() => engine.forgetRejections());
  }

  /** Sets (replaces) the identity's override; InvalidPolicyChangeError when it is not valid. */
  async set(
    policyName: string,
    identity: string,
    override: ClientOverride,
  ): Promise<ClientOverrideRecord> {
    const policy = this.registry.require(policyName);
    const now = Date.now();
    const problems = clientOverrideProblems(override, policy, now);
    if (problems.length > 0) throw new InvalidPolicyChangeError(problems);
    const tag = this.config.keys.operatorTag(identity);
    const record = withoutUndefined({
      ...override,
      identity: this.config.keys.listedIdentity(tag),
      updatedAt: now,
    });
    const before = this.audit.kept ? await this.listed(policyName, tag) : undefined;
    this.inUse.mark();
    // The client's key first: it is what decides; the index only lists it.
    await this.store.putClientOverride(
      this.key(tag, policyName),
      encodeClientOverride(override),
      override.expiresAt,
    );
    await this.audit.record({
      policy: policyName,
      action: 'client-override-set',
      identity: record.identity,
      before,
      after: auditedOverride(record),
    });
    await this.afterWrite(policyName, tag, () => this.index.put(policyName, tag, record));
    return record;
  }

  /**
   * Removes the identity's override; false when it had none. Depends on the client's key alone,
   * so an override whose listing is damaged can still be removed.
   */
  async remove(policyName: string, identity: string): Promise<boolean> {
    this.registry.require(policyName);
    const tag = this.config.keys.operatorTag(identity);
    const key = this.key(tag, policyName);
    const [existed] = await this.store.existing([key]);
    const before = existed && this.audit.kept ? await this.listed(policyName, tag) : null;
    await this.store.putClientOverride(key, null);
    if (existed) {
      await this.audit.record({
        policy: policyName,
        action: 'client-override-remove',
        identity: this.config.keys.listedIdentity(tag),
        before,
      });
    }
    // Gone from decisions: a listing that could not be updated drops it when next read (its key
    // is gone), so the removal stands and is only logged.
    try {
      await this.index.remove(policyName, [tag]);
    } catch (error) {
      this.logger.warn(
        `client override removed, but not from the listing of "${policyName}": ${(error as Error).message}`,
      );
    }
    await this.announce(policyName, tag);
    return existed;
  }

  /** Whether the policy lists any client override (expired ones not yet dropped included). */
  async any(policyName: string): Promise<boolean> {
    return (await this.index.count(policyName)) > 0;
  }

  /**
   * Lists the change and tells every instance, once the client's key is written: the override
   * is in force, so a failure here is an uncertain write (504: repeat it), never "nothing
   * written".
   */
  private async afterWrite(policyName: string, tag: string, list: () => Promise<void>) {
    try {
      await list();
    } catch (error) {
      await this.announce(policyName, tag);
      throw new UncertainWriteError(
        `the client override is in force, but its listing was not updated ` +
          `(${(error as Error).message}); repeat the request`,
        { cause: error },
      );
    }
    await this.announce(policyName, tag);
  }

  /** The identity's override in force, if any. */
  async get(policyName: string, identity: string): Promise<ClientOverrideRecord | undefined> {
    this.registry.require(policyName);
    const tag = this.config.keys.operatorTag(identity);
    const record = await this.index.get(policyName, tag);
    if (!record) return undefined;
    const [live] = await this.live(policyName, [[tag, record]]);
    return live;
  }

  /** The policy's overrides in force, a page at a time; expired ones are dropped from the list. */
  async list(
    policyName: string,
    cursor: string | null,
    count: number,
  ): Promise<ClientOverrideList> {
    this.registry.require(policyName);
    const page = await this.index.page(policyName, cursor, count);
    return { items: await this.live(policyName, page.records), cursor: page.cursor };
  }

  /**
   * The records whose client key still exists: one that expired (or was deleted with redis-cli)
   * leaves the index here.
   */
  private async live(
    policyName: string,
    records: readonly [string, ClientOverrideRecord][],
  ): Promise<ClientOverrideRecord[]> {
    if (records.length === 0) return [];
    const exists = await this.store.existing(records.map(([tag]) => this.key(tag, policyName)));
    const gone = records.filter((_, i) => !exists[i]).map(([tag]) => tag);
    if (gone.length > 0) await this.index.remove(policyName, gone);
    return records.filter((_, i) => exists[i]).map(([, record]) => record);
  }

  /** The override as listed now, for the audit log; null when none or the listing is away. */
  private async listed(policyName: string, tag: string): Promise<object | null> {
    return auditedOverride(await this.index.get(policyName, tag).catch(() => undefined));
  }

  private async announce(policyName: string, tag: string): Promise<void> {
    this.engine.forgetRejections();
    await this.channel.announceClientOverride(policyName, [tag]);
  }

  private key(tag: string, policyName: string): string {
    return this.config.keys.clientOverrideKey(tag, policyName);
  }
}
