import { AUDIT_CAP, type AuditEntry } from './audit-entry';
import type { AuditStore } from './audit-store';

/** The audit log of an application without Redis: the same cap, in this process. */
export class MemoryAuditStore implements AuditStore {
  private entries: AuditEntry[] = [];
  private readonly seen = new Map<string, string>();

  async append(entry: AuditEntry, state?: string): Promise<void> {
    if (state) this.seen.set(entry.policy, state);
    this.push(entry);
  }

  async appendIfChanged(entry: AuditEntry, state: string): Promise<boolean> {
    const before = this.seen.get(entry.policy);
    if (before === state) return false;
    this.seen.set(entry.policy, state);
    if (before === undefined) return false;
    this.push(entry);
    return true;
  }

  async list(): Promise<AuditEntry[]> {
    return [...this.entries];
  }

  private push(entry: AuditEntry): void {
    this.entries.unshift(entry);
    if (this.entries.length > AUDIT_CAP) this.entries.length = AUDIT_CAP;
  }
}
