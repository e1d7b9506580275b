import { overrideState } from './audit-entry';

/**
 * Decides when an instance asks the audit log whether a policy's override, as its refresh read
 * it, was written straight into the hash. Only a state read twice in a row is asked about: an
 * admin API write records its own state right after writing, well within a refresh interval,
 * so it is not mistaken for a direct write; and each state is asked about once. Keeps the
 * thresholds in force before the state was first read, to report them as "before".
 */
export class HashWriteWatch {
  private readonly lastRead = new Map<string, { state: string; before: unknown }>();
  private readonly asked = new Map<string, string>();

  /**
   * Called with each override read, before it is applied (`thresholds`: those in force now).
   * Answers the thresholds before the change when it should be reported, else undefined.
   */
  read(policy: string, override: object | null, thresholds: () => unknown): unknown {
    const state = overrideState(override);
    const last = this.lastRead.get(policy);
    if (last?.state !== state) {
      this.lastRead.set(policy, { state, before: thresholds() });
      return undefined;
    }
    if (this.asked.get(policy) === state) return undefined;
    this.asked.set(policy, state);
    return last.before;
  }
}
