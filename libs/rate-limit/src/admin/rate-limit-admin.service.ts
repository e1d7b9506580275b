import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { InvalidPolicyChangeError } from '../errors/invalid-policy-change.error';
import { StoredKeyConflictError } from '../errors/stored-key-conflict.error';
import { UnknownTierError } from '../errors/unknown-tier.error';
import {
  TIER_THRESHOLDS,
  type PolicyOverride,
  type TierThresholds,
} from '../policy/policy-thresholds';
import { RATE_LIMIT_CONFIG, RATE_LIMIT_OVERRIDES, RATE_LIMIT_STORE } from '../rate-limit.constants';
import {
  PolicyRegistry,
  effectiveProblem,
  type EffectiveThresholds,
} from '../registry/policy-registry';
import type { AuditAction } from '../runtime/audit/audit-entry';
import { AuditLog } from '../runtime/audit/audit-log.service';
import { auditedThresholds } from '../runtime/audit/audited-thresholds';
import { ClientOverrides } from '../runtime/client-overrides/client-overrides.service';
import { parseOverrideHash, tierField } from '../runtime/policy-override-codec';
import type { PolicyOverrideStore } from '../runtime/policy-override-store';
import { PolicyStats, type PolicyTotals } from '../runtime/policy-stats.service';
import type { RateLimitStore } from '../store/rate-limit-store.interface';
import type { KeyUsagePage, PolicyPatch, PolicyView } from './policy-view.interface';
import { PolicyKeys } from './policy-keys';
import { policyView } from './policy-view';
import { retighten } from './shorten-expiries';
import { fromStore, writing } from './store-actions';

/**
 * What the admin API does, independent of HTTP: list and change policies and their tiers, show
 * and reset per-identity usage. Throws the library's typed errors (UnknownPolicyError,
 * UnknownTierError, InvalidPolicyChangeError, RateLimitStoreError, ...); the controller maps
 * them to HTTP.
 */
@Injectable()
export class RateLimitAdminService {
  private readonly logger = new Logger('RateLimitAdmin');

  constructor(
    private readonly registry: PolicyRegistry,
    private readonly stats: PolicyStats,
    private readonly keyUsage: PolicyKeys,
    @Inject(RATE_LIMIT_OVERRIDES) private readonly overrides: PolicyOverrideStore,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly appConfig: ApplicationConfig,
    private readonly clients: ClientOverrides,
    private readonly audit: AuditLog,
  ) {}

  async list(): Promise<PolicyView[]> {
    const names = this.registry.names().sort();
    const totals = await fromStore(() => this.stats.totals(names));
    return names.map((name) => this.view(name, totals.get(name)!));
  }

  async get(name: string): Promise<PolicyView> {
    this.registry.require(name);
    const totals = await fromStore(() => this.stats.totals([name]));
    return this.view(name, totals.get(name)!);
  }

  /** Sets the changed fields of the override and announces the result to every instance. */
  async update(name: string, patch: PolicyPatch): Promise<PolicyView> {
    this.registry.require(name);
    // Checked as a whole, on the override as stored now (another instance or redis-cli may have
    // changed it since this one last read it), before anything is written.
    const current = await this.storedOverride(name);
    this.checkResult(name, { ...current, ...patch });
    return this.write(name, patch, [], { action: 'update' });
  }

  /** Sets the changed thresholds of one tier, as `update` does for the policy. */
  async updateTier(name: string, tier: string, patch: TierThresholds): Promise<PolicyView> {
    this.knownTier(name, tier);
    const current = await this.storedOverride(name);
    const tiers = { ...current?.tiers, [tier]: { ...current?.tiers?.[tier], ...patch } };
    this.checkResult(name, { ...current, tiers });
    return this.write(name, { tiers: { [tier]: patch } }, [], { action: 'update-tier', tier });
  }

  /** Back to the tier's declared thresholds (the policy's own override stays). */
  async clearTierOverride(name: string, tier: string): Promise<PolicyView> {
    this.knownTier(name, tier);
    // The tier as declared must still agree with the rest (say, a policy since moved to
    // sliding-window, whose cap the declared tier is above): checked before anything is written.
    const current = await this.storedOverride(name);
    const tiers = Object.fromEntries(
      Object.entries(current?.tiers ?? {}).filter(([other]) => other !== tier),
    );
    this.checkResult(name, { ...current, tiers });
    const removed = TIER_THRESHOLDS.map((field) => tierField(tier, field));
    return this.write(name, {}, removed, { action: 'clear-tier-override', tier });
  }

  /** The override as stored now (another instance or redis-cli may have changed it since). */
  private async storedOverride(name: string): Promise<PolicyOverride | null> {
    return fromStore(async () => {
      const hash = (await this.overrides.readAll([name])).get(name);
      if (hash instanceof Error) {
        throw new StoredKeyConflictError(this.config.keys.policyKey(name), 'a hash');
      }
      return hash ? parseOverrideHash(hash).override : null;
    });
  }

  private checkResult(name: string, override: PolicyOverride): void {
    const result = this.registry.preview(name, override);
    const problem = result && effectiveProblem(result);
    if (problem) throw new InvalidPolicyChangeError([problem]);
  }

  private async write(
    name: string,
    patch: PolicyOverride,
    removed: readonly string[],
    audited: { action: AuditAction; tier?: string },
  ): Promise<PolicyView> {
    const fields = { ...patch, updatedAt: Date.now() };
    const before = this.registry.effective(name)!;
    const override = await writing(() => this.overrides.update(name, fields, removed));
    // Checked before writing; a change another writer made meanwhile may still spoil the whole.
    const problem = this.registry.applyOverride(name, override);
    if (problem) this.logger.warn(`The override of "${name}" as stored is not applied: ${problem}`);
    return this.changed(name, audited, before, override);
  }

  async clearOverride(name: string): Promise<PolicyView> {
    this.registry.require(name);
    const before = this.registry.effective(name)!;
    await writing(() => this.overrides.clear(name));
    this.registry.applyOverride(name, null);
    return this.changed(name, { action: 'clear-override' }, before, null);
  }

  /** A change stored and applied: audited, keys re-tightened if need be, the policy answered. */
  private async changed(
    name: string,
    change: { action: AuditAction; tier?: string },
    before: EffectiveThresholds,
    override: PolicyOverride | null,
  ): Promise<PolicyView> {
    const after = auditedThresholds(this.registry.effective(name)!);
    await this.audit.record(
      { policy: name, ...change, before: auditedThresholds(before), after },
      override,
    );
    await this.shortenIfNeeded(name, before);
    return this.get(name);
  }

  /** A shorter window (or faster refill) re-tightens the keys at once (see retighten). */
  private async shortenIfNeeded(name: string, before: EffectiveThresholds): Promise<void> {
    const after = this.registry.effective(name)!;
    await retighten(name, before, after, {
      store: this.store,
      keys: this.config.keys,
      hasClientOverrides: () => this.clients.any(name),
      logger: this.logger,
    });
  }

  /** Live usage per identity, a page at a time (see PolicyKeys). */
  async keys(name: string, cursor: string | undefined, count: number): Promise<KeyUsagePage> {
    return this.keyUsage.page(this.registry.require(name), cursor, count);
  }

  /** Unknown policy: UnknownPolicyError, from IdentityResets. */
  async resetKey(name: string, identity: string): Promise<void> {
    await this.keyUsage.reset(name, identity);
    const listed = this.config.keys.listedIdentity(this.config.keys.operatorTag(identity));
    await this.audit.record({ policy: name, action: 'reset', identity: listed });
  }

  private knownTier(name: string, tier: string): void {
    this.registry.require(name);
    if (!this.registry.declaredTiers(name).has(tier)) throw new UnknownTierError(name, tier);
  }

  private view(name: string, totals: PolicyTotals): PolicyView {
    return policyView(this.registry, name, totals, {
      globalPrefix: this.appConfig.getGlobalPrefix(),
      versioning: this.appConfig.getVersioning(),
    });
  }
}
