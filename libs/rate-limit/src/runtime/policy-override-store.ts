import type { PolicyOverride } from '../policy/policy-thresholds';

/**
 * Where overrides live: Redis hashes `<prefix>:policy:<name>` shared by every instance, or this
 * process alone when no Redis is configured. A write is announced on the PolicyChannel.
 */
export interface PolicyOverrideStore {
  /**
   * Raw hash contents per name; a missing hash is an empty object, and a key Redis refuses to
   * read as a hash (WRONGTYPE) is that error, for that name alone.
   */
  readAll(names: readonly string[]): Promise<Map<string, Record<string, string> | Error>>;
  /**
   * Sets the given fields and deletes the `removed` hash fields (others, written by anyone,
   * stay), tells every instance and answers
   * the whole override as stored.
   */
  update(
    name: string,
    fields: PolicyOverride,
    removed?: readonly string[],
  ): Promise<PolicyOverride | null>;
  /** Removes the override and tells every instance. */
  clear(name: string): Promise<void>;
}
