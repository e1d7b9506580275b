import { useState } from 'preact/hooks';
import { confirmed, useAction } from '../action';
import { enc, query, request } from '../api';
import { fmtCount, fmtDuration, fmtTime } from '../format';
import { usePoll } from '../poll';
import type { ClientOverrideView, Page } from '../types';
import { ActionStatus } from './ActionStatus';
import { LoadState } from './LoadState';
import { OverrideForm } from './OverrideForm';
import { MoreButton, RowAction } from './RowButtons';
import { TableWrap } from './TableWrap';

const PAGE = 100;

function what(o: ClientOverrideView): string {
  if (o.action === 'allow') return 'never limited';
  // What the client is told: without a message of its own, the API's default.
  if (o.action === 'deny') return `denied: “${o.message ?? 'Forbidden'}”`;
  const parts: string[] = [];
  if (o.limit !== undefined) parts.push(`limit ${fmtCount(o.limit)}`);
  if (o.windowMs !== undefined) parts.push(`per ${fmtDuration(o.windowMs)}`);
  if (o.burst !== undefined) parts.push(`burst ${fmtCount(o.burst)}`);
  return parts.join(', ') || "policy's thresholds";
}

/** Per-client exceptions: their own quota, always allowed, or always denied. */
export function OverridesPanel({ base }: { base: string }) {
  const first = usePoll<Page<ClientOverrideView>>(`clients:${base}`, () =>
    request(`${base}/clients${query({ count: PAGE })}`),
  );
  const [more, setMore] = useState<Page<ClientOverrideView> | null>(null);
  const action = useAction();

  const seen = new Set(first.data?.items.map((o) => o.identity));
  const items = [
    ...(first.data?.items ?? []),
    ...(more?.items.filter((o) => !seen.has(o.identity)) ?? []),
  ];
  const cursor = more ? more.cursor : (first.data?.cursor ?? null);

  const reload = async () => {
    setMore(null);
    await first.refresh();
  };

  const loadMore = () =>
    action.run(async () => {
      const page = await request<Page<ClientOverrideView>>(
        `${base}/clients${query({ cursor, count: PAGE })}`,
      );
      setMore((m) => ({ items: [...(m?.items ?? []), ...page.items], cursor: page.cursor }));
    });

  const remove = async (identity: string) => {
    if (!confirmed(`Remove the override of ${identity}? The policy applies to it again.`)) return;
    const ok = await action.run(
      () => request<void>(`${base}/clients/${enc(identity)}`, { method: 'DELETE' }),
      `Removed the override of ${identity}.`,
    );
    if (ok) await reload();
  };

  return (
    <>
      <div class="panel-body" role="region" aria-label="Client overrides, scrollable" tabIndex={0}>
        <LoadState polled={first} what="client overrides" />
        {first.data && items.length === 0 && (
          <p class="muted">No client has an override under this policy.</p>
        )}
        {items.length > 0 && (
          <TableWrap label="Overrides in force">
            <table>
              <thead>
                <tr>
                  <th scope="col">Client</th>
                  <th scope="col">Action</th>
                  <th scope="col">Details</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Updated</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((o) => (
                  <tr key={o.identity} data-testid="override-row">
                    <th scope="row">
                      <code class="identity">{o.identity}</code>
                    </th>
                    <td>
                      <span class={`badge badge-${o.action}`}>{o.action}</span>
                    </td>
                    <td>{what(o)}</td>
                    <td>{o.expiresAt ? fmtTime(o.expiresAt) : 'when removed'}</td>
                    <td>{fmtTime(o.updatedAt)}</td>
                    <RowAction
                      testId="remove-override"
                      label="Remove"
                      target={`override of ${o.identity}`}
                      action={action}
                      danger
                      onClick={() => remove(o.identity)}
                    />
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        <MoreButton cursor={cursor} action={action} what="overrides" onClick={loadMore} />
        <ActionStatus action={action} />
      </div>
      <OverrideForm base={base} onSaved={reload} />
    </>
  );
}
