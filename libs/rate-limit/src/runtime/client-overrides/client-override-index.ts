import type { ClientOverride } from '../../policy/client-override';

/** A client override as the admin API lists it. */
export interface ClientOverrideRecord extends ClientOverride {
  /** The identity as the admin API lists identities (a fingerprint for hashed ones). */
  readonly identity: string;
  /** ms since the epoch. */
  readonly updatedAt: number;
}

export interface ClientOverridePage {
  /** By the key tag of each identity. */
  readonly records: [tag: string, record: ClientOverrideRecord][];
  /** Pass back for the next page; null when the listing is complete. */
  readonly cursor: string | null;
}

/**
 * The list of a policy's client overrides, for operators: decisions never read it (they read
 * each client's own key, see KeyBuilder.clientOverrideKey). In Redis a hash per policy,
 * `<prefix>:clients:<policy>`, field = the identity's key tag; or this process's memory.
 */
export interface ClientOverrideIndex {
  put(policy: string, tag: string, record: ClientOverrideRecord): Promise<void>;
  remove(policy: string, tags: readonly string[]): Promise<void>;
  get(policy: string, tag: string): Promise<ClientOverrideRecord | undefined>;
  /** How many are listed (expired ones not yet dropped included). */
  count(policy: string): Promise<number>;
  /** A page at a time; `cursor` null starts. A page may hold more or fewer than `count`. */
  page(policy: string, cursor: string | null, count: number): Promise<ClientOverridePage>;
}

/** A stored record, or undefined for anything else (written by hand). */
export function parseRecord(raw: string | null | undefined): ClientOverrideRecord | undefined {
  if (!raw) return undefined;
  try {
    const record = JSON.parse(raw) as ClientOverrideRecord;
    // Written by hand, it may hold anything: the listing shows its times as dates.
    const valid =
      typeof record === 'object' &&
      record !== null &&
      typeof record.identity === 'string' &&
      Number.isSafeInteger(record.updatedAt) &&
      (record.expiresAt === undefined || Number.isSafeInteger(record.expiresAt));
    return valid ? record : undefined;
  } catch {
    return undefined;
  }
}
