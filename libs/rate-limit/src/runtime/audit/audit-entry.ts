/** What an audit entry records. */
export type AuditAction =
  | 'update'
  | 'clear-override'
  | 'update-tier'
  | 'clear-tier-override'
  | 'reset'
  | 'client-override-set'
  | 'client-override-remove'
  | 'hash-write'
  | 'adaptive-direction'
  | 'adaptive-freeze'
  | 'adaptive-reset';

/**
 * Who made the change: the admin API, a write straight into the policy's Redis hash, or the
 * adaptive fleet loop turning (its entries have the policy ADAPTIVE_AUDIT_POLICY).
 */
export type AuditSource = 'api' | 'hash' | 'adaptive';

/** The `policy` of adaptive protection's entries: no policy name can have parentheses. */
export const ADAPTIVE_AUDIT_POLICY = '(adaptive)';

/**
 * One change of thresholds, one reset or one client override, as the audit log keeps it.
 * `before`/`after` are the policy's thresholds in force (AuditedThresholds) for threshold
 * changes, the client override for client overrides, null for resets.
 * @publicApi
 */
export interface AuditEntry {
  /** When (epoch ms, the recording instance's clock). */
  readonly at: number;
  readonly policy: string;
  readonly action: AuditAction;
  readonly tier?: string;
  /** The identity, as the admin API lists it (resets, client overrides). */
  readonly identity?: string;
  readonly before: unknown;
  readonly after: unknown;
  /** The instance that made or noticed the change (InstanceHeartbeat.id). */
  readonly instance: string;
  readonly source: AuditSource;
}

const ACTIONS = new Set<string>([
  'update',
  'clear-override',
  'update-tier',
  'clear-tier-override',
  'reset',
  'client-override-set',
  'client-override-remove',
  'hash-write',
  'adaptive-direction',
  'adaptive-freeze',
  'adaptive-reset',
]);

/** An entry as this library writes it; anything else in the log (written by hand) is not one. */
export function isAuditEntry(value: unknown): value is AuditEntry {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const e = value as Record<string, unknown>;
  const optionalText = (v: unknown) => v === undefined || typeof v === 'string';
  return (
    Number.isSafeInteger(e.at) &&
    (e.at as number) >= 0 &&
    typeof e.policy === 'string' &&
    ACTIONS.has(e.action as string) &&
    typeof e.instance === 'string' &&
    (e.source === 'api' || e.source === 'hash' || e.source === 'adaptive') &&
    optionalText(e.tier) &&
    optionalText(e.identity) &&
    'before' in e &&
    'after' in e
  );
}

/** How many entries the log keeps (the oldest go first). */
export const AUDIT_CAP = 1_000;
/** How many entries each policy's own log keeps: a busy policy never evicts a quiet one's. */
export const POLICY_AUDIT_CAP = 200;

/** An override as comparable, stored JSON: sorted keys, without its `updatedAt` stamp. */
export function overrideState(override: object | null | undefined): string {
  if (!override) return 'null';
  return JSON.stringify(override, (key, value: unknown) => {
    if (key === 'updatedAt') return undefined;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(record)
          .sort()
          .map((k) => [k, record[k]]),
      );
    }
    return value;
  });
}
