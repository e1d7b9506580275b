import type { PolicyOverride } from '../admin/policy-view.interface';

/** Identities of the policy (their key tags) were reset on some instance. */
export type ResetListener = (name: string, tags: readonly string[]) => void;

/** Someone (maybe another instance) changed a policy's override; null means removed. */
export type OverrideListener = (name: string, override: PolicyOverride | null) => void;

/**
 * Where overrides live: Redis hashes `<prefix>:policy:<name>` shared by every instance (and
 * announced on Pub/Sub), or this process alone when no Redis is configured.
 */
export interface PolicyOverrideStore {
  /**
   * Raw hash contents per name; a missing hash is an empty object, and a key Redis refuses to
   * read as a hash (WRONGTYPE) is that error, for that name alone.
   */
  readAll(names: readonly string[]): Promise<Map<string, Record<string, string> | Error>>;
  /**
   * Sets the given fields (others, written by anyone, stay), tells every instance and answers
   * the whole override as stored.
   */
  update(name: string, fields: PolicyOverride): Promise<PolicyOverride | null>;
  /** Removes the override and tells every instance. */
  clear(name: string): Promise<void>;
  /**
   * Starts listening for changes announced by any instance (this one included); resolves once
   * listening, or after `waitMs` (the refresh interval covers a late subscription).
   */
  subscribe(listener: OverrideListener, waitMs: number, onReset?: ResetListener): Promise<void>;
  /**
   * Tells every instance that identities of the policy were reset: their state in each
   * instance's memory fallback and their remembered rejections go too.
   */
  announceReset(name: string, tags: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
