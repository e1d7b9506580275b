import type { ClientOverrideRecord } from './client-override-index';

export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** What the audit log shows of a client override: the override, without who and when. */
export function auditedOverride(record: ClientOverrideRecord | undefined): object | null {
  if (!record) return null;
  const { identity: _identity, updatedAt: _updatedAt, ...override } = record;
  return override;
}
