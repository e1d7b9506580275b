import { Inject, Injectable, Logger } from '@nestjs/common';
import { RATE_LIMIT_AUDIT } from '../../rate-limit.constants';
import { InstanceHeartbeat } from '../instance-heartbeat.service';
import { overrideState, type AuditEntry } from './audit-entry';
import type { AuditStore } from './audit-store';
import type { AuditedChange, ChangeSink } from './change-trail';

export type { AuditedChange };

/**
 * The audit trail of threshold changes, resets and client overrides: each is logged on the
 * `RateLimitAudit` logger and appended to a capped log in the store (Redis: shared by every
 * instance), which the dashboard shows. Recording never fails the change it records: the change
 * is made by then, so a store failure is logged as a warning.
 */
@Injectable()
export class AuditLog implements ChangeSink {
  private readonly logger = new Logger('RateLimitAudit');

  constructor(
    @Inject(RATE_LIMIT_AUDIT) private readonly store: AuditStore,
    private readonly heartbeat: InstanceHeartbeat,
  ) {}

  /**
   * A change made through the admin API. `override`: the policy's override as stored after it,
   * when the change was one (so that refreshes do not take it for a direct write).
   */
  async record(change: AuditedChange, override?: object | null): Promise<void> {
    const { source = 'api', ...changed } = change;
    const entry: AuditEntry = {
      at: Date.now(),
      ...changed,
      before: stripStamp(change.before ?? null),
      after: stripStamp(change.after ?? null),
      instance: this.heartbeat.id,
      source,
    };
    this.logger.log(describe(entry));
    const state = override === undefined ? undefined : overrideState(override);
    await this.store.append(entry, state).catch((error: unknown) => this.failed(error));
  }

  /**
   * The override of a policy as read from its hash, and its thresholds before and after it was
   * applied: when the override differs from the last audited one, someone wrote the hash
   * directly; the first instance to notice logs it.
   */
  async noticeStored(
    policy: string,
    override: object | null,
    before: unknown,
    after: unknown,
  ): Promise<void> {
    const entry: AuditEntry = {
      at: Date.now(),
      policy,
      action: 'hash-write',
      before,
      after,
      instance: this.heartbeat.id,
      source: 'hash',
    };
    try {
      if (await this.store.appendIfChanged(entry, overrideState(override))) {
        this.logger.log(describe(entry));
      }
    } catch (error) {
      this.failed(error);
    }
  }

  /** The newest entries first, of one policy or all, at most `limit`. */
  async list(policy: string | undefined, limit: number): Promise<AuditEntry[]> {
    return this.store.list(policy, limit);
  }

  private failed(error: unknown): void {
    this.logger.warn(`Could not append to the audit log: ${(error as Error).message}`);
  }
}

function stripStamp(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  return JSON.parse(overrideState(value)) as unknown;
}

/** The log line: never a raw identity (callers pass the listed form), never a token. */
function describe(entry: AuditEntry): string {
  const parts = [`${entry.action}: policy=${entry.policy}`, `source=${entry.source}`];
  if (entry.tier !== undefined) parts.push(`tier=${entry.tier}`);
  if (entry.identity !== undefined) parts.push(`identity=${entry.identity}`);
  parts.push(`before=${JSON.stringify(entry.before)}`);
  parts.push(`after=${JSON.stringify(entry.after)}`);
  return parts.join(' ');
}
