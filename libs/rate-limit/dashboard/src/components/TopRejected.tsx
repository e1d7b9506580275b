import { confirmed, useAction } from '../action';
import { enc, request } from '../api';
import { fmtCount } from '../format';
import { usePoll } from '../poll';
import type { TopRejected as Top } from '../types';
import { ActionStatus } from './ActionStatus';
import { LoadState } from './LoadState';
import { RowAction } from './RowButtons';
import { TableWrap } from './TableWrap';

export const resetKey = (base: string, identity: string) =>
  request<void>(`${base}/keys/${enc(identity)}`, { method: 'DELETE' });

export function TopRejected({ base }: { base: string }) {
  const top = usePoll<Top>(`top:${base}`, () => request(`${base}/top-rejected?minutes=5`));
  const action = useAction();

  const reset = async (identity: string) => {
    if (!confirmed(`Reset the usage of ${identity}? It may send requests again at once.`)) return;
    if (await action.run(() => resetKey(base, identity), `Reset ${identity}.`)) void top.refresh();
  };

  const items = top.data?.items ?? [];
  return (
    <div
      class="panel-body"
      role="region"
      aria-label="Most rejected clients, scrollable"
      tabIndex={0}
    >
      <LoadState polled={top} what="the most rejected clients" />
      {top.data && items.length === 0 && (
        <p class="muted">No client was rejected in the last 5 minutes.</p>
      )}
      {items.length > 0 && (
        <TableWrap label="Most rejected clients">
          <table>
            <thead>
              <tr>
                <th scope="col">Client</th>
                <th scope="col" class="num">
                  Rejected
                </th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => (
                <tr key={i.identity} data-testid="top-row">
                  <th scope="row">
                    <code class="identity">{i.identity}</code>
                  </th>
                  <td class="num">{fmtCount(i.rejected)}</td>
                  <RowAction
                    testId="reset-top"
                    label="Reset"
                    target={i.identity}
                    action={action}
                    onClick={() => reset(i.identity)}
                  />
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <ActionStatus action={action} />
    </div>
  );
}
