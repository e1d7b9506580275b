import { overrideState } from './audit-entry';

/**
 * Decides when an instance asks the audit log whether a policy's override, as its refresh read
 * it, was written straight into the hash. Only a state read twice in a row is asked about: an
 * admin API write records its own state right after writing, well within a refresh interval,
 * so it is not mistaken for a direct write; and each state is asked about once.
 */
export class HashWriteWatch {
  private readonly lastRead = new Map<string, string>();
  private readonly asked = new Map<string, string>();

  /** True when `override` should now be reported to AuditLog.noticeStored. */
  read(policy: string, override: object | null): boolean {
    const state = overrideState(override);
    const last = this.lastRead.get(policy);
    this.lastRead.set(policy, state);
    if (last !== state || this.asked.get(policy) === state) return false;
    this.asked.set(policy, state);
    return true;
  }
}
