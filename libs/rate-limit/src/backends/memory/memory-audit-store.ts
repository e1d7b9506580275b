import { AUDIT_CAP, POLICY_AUDIT_CAP, type AuditEntry } from '../../runtime/audit/audit-entry';
import type { AuditStore } from '../../runtime/audit/audit-store';

/** The audit log of an application without Redis: the same caps and rules, in this process. */
export class MemoryAuditStore implements AuditStore {
  private readonly entries: AuditEntry[] = [];
  private readonly byPolicy = new Map<string, AuditEntry[]>();
  private readonly seen = new Map<string, string>();
  /** Per policy, state -> when the API wrote it. */
  private readonly apiStates = new Map<string, Map<string, number>>();

  constructor(private readonly apiWindowMs = 60_000) {}

  async append(entry: AuditEntry, state?: string): Promise<void> {
    this.prune(entry.policy);
    if (state) {
      this.seen.set(entry.policy, state);
      const states = this.apiStates.get(entry.policy) ?? new Map<string, number>();
      this.apiStates.set(entry.policy, states.set(state, Date.now()));
    }
    this.push(entry);
  }

  async appendIfChanged(entry: AuditEntry, state: string): Promise<boolean> {
    this.prune(entry.policy);
    const before = this.seen.get(entry.policy);
    const fromApi = this.apiStates.get(entry.policy)?.delete(state) ?? false;
    if (before === state) return false;
    this.seen.set(entry.policy, state);
    if (fromApi || before === undefined) return false;
    this.apiStates.delete(entry.policy);
    this.push(entry);
    return true;
  }

  private prune(policy: string): void {
    const states = this.apiStates.get(policy);
    for (const [written, at] of states ?? []) {
      if (Date.now() - at > this.apiWindowMs) states!.delete(written);
    }
  }

  async list(policy: string | undefined, limit: number): Promise<AuditEntry[]> {
    const entries = policy === undefined ? this.entries : (this.byPolicy.get(policy) ?? []);
    return entries.slice(0, limit);
  }

  private push(entry: AuditEntry): void {
    const own = this.byPolicy.get(entry.policy) ?? [];
    this.byPolicy.set(entry.policy, own);
    for (const [log, cap] of [
      [this.entries, AUDIT_CAP],
      [own, POLICY_AUDIT_CAP],
    ] as const) {
      log.unshift(entry);
      if (log.length > cap) log.length = cap;
    }
  }
}
