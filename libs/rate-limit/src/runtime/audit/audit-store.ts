import type { AuditEntry } from './audit-entry';

/** Where the audit log lives: Redis (shared by every instance) or this process. */
export interface AuditStore {
  /** Appends an entry the admin API made; `state` is the policy override after it, if any. */
  append(entry: AuditEntry, state?: string): Promise<void>;
  /**
   * Appends `entry` (its `before` filled with the last audited state) when `state` differs from
   * the last audited state of the policy; true when it did. The first state seen is kept, not
   * logged.
   */
  appendIfChanged(entry: Omit<AuditEntry, 'before'>, state: string): Promise<boolean>;
  /** The newest entries first. */
  list(): Promise<AuditEntry[]>;
}
