import type { AuditEntry } from './audit-entry';

/** Where the audit log lives: Redis (shared by every instance) or this process. */
export interface AuditStore {
  /** Appends an entry the admin API made; `state` is the policy override after it, if any. */
  append(entry: AuditEntry, state?: string): Promise<void>;
  /**
   * Appends `entry` when `state` differs from the last audited override state of the policy
   * and is not one the admin API wrote lately (within `apiWindowMs`); true when it did. The
   * first state seen is kept as a baseline, not logged.
   */
  appendIfChanged(entry: AuditEntry, state: string): Promise<boolean>;
  /** The newest entries first, of one policy (its own log) or of all, at most `limit`. */
  list(policy: string | undefined, limit: number): Promise<AuditEntry[]>;
}
