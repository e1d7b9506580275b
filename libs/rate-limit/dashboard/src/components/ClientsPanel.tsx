import { useState } from 'preact/hooks';
import { confirmed, useAction } from '../action';
import { request, query } from '../api';
import { fmtCount, fmtDuration } from '../format';
import { usePoll } from '../poll';
import type { KeyUsage, Page } from '../types';
import { ActionStatus } from './ActionStatus';
import { LoadState } from './LoadState';
import { MoreButton, RowAction } from './RowButtons';
import { TableWrap } from './TableWrap';
import { resetKey } from './TopRejected';

const PAGE = 100;

/**
 * Live usage per client from the keys listing (SCAN pages). The first page is polled; pages
 * fetched with "more" are kept below it until the next full reload.
 */
export function ClientsPanel({ base }: { base: string }) {
  const first = usePoll<Page<KeyUsage>>(`keys:${base}`, () =>
    request(`${base}/keys${query({ count: PAGE })}`),
  );
  const [more, setMore] = useState<{ items: KeyUsage[]; cursor: string | null } | null>(null);
  const [search, setSearch] = useState('');
  const action = useAction();
  const paging = useAction();

  const seen = new Set(first.data?.items.map((k) => k.identity));
  const all = [
    ...(first.data?.items ?? []),
    ...(more?.items.filter((k) => !seen.has(k.identity)) ?? []),
  ];
  const needle = search.trim().toLowerCase();
  const shown = needle ? all.filter((k) => k.identity.toLowerCase().includes(needle)) : all;
  const cursor = more ? more.cursor : (first.data?.cursor ?? null);

  const loadMore = () =>
    paging.run(async () => {
      const page = await request<Page<KeyUsage>>(`${base}/keys${query({ cursor, count: PAGE })}`);
      setMore((m) => ({ items: [...(m?.items ?? []), ...page.items], cursor: page.cursor }));
    });

  const reset = async (identity: string) => {
    if (!confirmed(`Reset the usage of ${identity}? It may send requests again at once.`)) return;
    if (await action.run(() => resetKey(base, identity), `Reset ${identity}.`)) {
      setMore(null);
      await first.refresh();
    }
  };

  return (
    <>
      <div class="toolbar">
        <div class="field">
          <label for="client-search">Find a client</label>
          <input
            id="client-search"
            data-testid="client-search"
            type="search"
            autocomplete="off"
            spellcheck={false}
            placeholder="identity, e.g. ip:203.0.113.7"
            value={search}
            aria-describedby="client-search-hint"
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
          <small id="client-search-hint" class="hint">
            Filters the list. To reset a client that is not listed, type its exact identity and use
            the button.
          </small>
        </div>
        <button
          type="button"
          class="secondary"
          data-testid="reset-identity"
          disabled={!search.trim() || action.busy}
          onClick={() => reset(search.trim())}
        >
          Reset this exact identity
        </button>
      </div>
      <ActionStatus action={action} testId="client-action-status" />
      <div class="panel-body" role="region" aria-label="Clients, scrollable" tabIndex={0}>
        <LoadState polled={first} what="clients" />
        {first.data && shown.length === 0 && (
          <p class="muted">
            {needle
              ? 'No listed client matches.'
              : 'No client has state under this policy right now.'}
          </p>
        )}
        {shown.length > 0 && (
          <TableWrap label="Usage per client">
            <table>
              <thead>
                <tr>
                  <th scope="col">Client</th>
                  <th scope="col" class="num">
                    Used
                  </th>
                  <th scope="col" class="num">
                    Remaining
                  </th>
                  <th scope="col">Resets in</th>
                  <th scope="col">Blocked</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((k) => (
                  <tr
                    key={k.identity}
                    data-testid="client-row"
                    class={k.blockedMs > 0 ? 'blocked' : undefined}
                  >
                    <th scope="row">
                      <code class="identity">{k.identity}</code>
                    </th>
                    <td class="num">{fmtCount(k.used)}</td>
                    <td class="num">{fmtCount(k.remaining)}</td>
                    <td>{fmtDuration(k.resetMs)}</td>
                    <td>
                      {k.blockedMs > 0 ? (
                        <span class="badge badge-bad">blocked {fmtDuration(k.blockedMs)}</span>
                      ) : (
                        'no'
                      )}
                    </td>
                    <RowAction
                      testId="reset-client"
                      label="Reset"
                      target={k.identity}
                      action={action}
                      onClick={() => reset(k.identity)}
                    />
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        <MoreButton cursor={cursor} action={paging} what="clients" onClick={loadMore} />
        <ActionStatus action={paging} />
      </div>
    </>
  );
}
