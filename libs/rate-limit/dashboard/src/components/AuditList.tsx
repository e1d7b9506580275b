import { query, request } from '../api';
import { fmtTime, fmtValue } from '../format';
import { usePoll } from '../poll';
import type { AuditEntry } from '../types';
import { LoadState } from './LoadState';

interface Change {
  field: string;
  before: unknown;
  after: unknown;
}

/** Only the fields that differ: a whole before/after object hides the one that matters. */
export function diff(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Change[] {
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: Change[] = [];
  for (const field of fields) {
    const b = before?.[field];
    const a = after?.[field];
    if (JSON.stringify(b) !== JSON.stringify(a)) changes.push({ field, before: b, after: a });
  }
  return changes;
}

const ACTIONS: Record<string, string> = {
  update: 'Thresholds changed',
  'clear-override': 'Override dropped',
  'update-tier': 'Tier changed',
  'clear-tier-override': 'Tier override dropped',
  reset: 'Client reset',
  'client-override-set': 'Client override set',
  'client-override-remove': 'Client override removed',
  'hash-write': 'Written straight to Redis',
};

export function AuditList({ policy }: { policy: string }) {
  const audit = usePoll<{ items: AuditEntry[] }>(`audit:${policy}`, () =>
    request(`/audit${query({ policy, limit: 50 })}`),
  );
  const items = audit.data?.items ?? [];
  return (
    <div class="panel-body" role="region" aria-label="Audit log, scrollable" tabIndex={0}>
      <LoadState polled={audit} what="the audit log" />
      {audit.data && items.length === 0 && <p class="muted">Nothing was changed yet.</p>}
      {items.length > 0 && (
        <ol class="audit">
          {items.map((e, i) => {
            const changes = diff(e.before, e.after);
            return (
              <li key={`${e.at}-${i}`} data-testid="audit-row" class="audit-row">
                <div class="audit-head">
                  <strong>{ACTIONS[e.action] ?? e.action}</strong>
                  {e.tier && (
                    <span>
                      {' '}
                      · tier <code>{e.tier}</code>
                    </span>
                  )}
                  {e.identity && (
                    <span>
                      {' '}
                      · client <code class="identity">{e.identity}</code>
                    </span>
                  )}
                  <span class="muted audit-meta">
                    {Number.isFinite(e.at) && (
                      <time dateTime={new Date(e.at).toISOString()}>{fmtTime(e.at)}</time>
                    )}{' '}
                    · {e.source === 'hash' ? 'Redis hash' : 'API'} · <code>{e.instance}</code>
                  </span>
                </div>
                {changes.length > 0 && (
                  <ul class="changes">
                    {changes.map((c) => (
                      <li key={c.field}>
                        <code>{c.field}</code>: <del>{fmtValue(c.before, c.field)}</del>{' '}
                        <span aria-hidden="true">→</span>
                        <span class="sr-only"> became </span>{' '}
                        <ins>{fmtValue(c.after, c.field)}</ins>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
