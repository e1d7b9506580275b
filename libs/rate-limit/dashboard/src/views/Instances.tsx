import { LoadState } from '../components/LoadState';
import { TableWrap } from '../components/TableWrap';
import { fmtAgo, fmtTime } from '../format';
import type { Polled } from '../poll';
import type { InstancesView } from '../types';

/** The instances' heartbeats; polled by the shell, which also feeds the banner. */
export function Instances({ polled }: { polled: Polled<InstancesView> }) {
  const data = polled.data;
  const now = Date.now();
  return (
    <>
      <div class="view-head">
        <h1>Instances</h1>
        {data && (
          <p>
            Redis:{' '}
            <span class={`badge ${data.redis === 'up' ? 'badge-ok' : 'badge-bad'}`}>
              {data.redis}
            </span>
            {' · '}
            {data.instances.length} instance{data.instances.length === 1 ? '' : 's'} reporting
          </p>
        )}
      </div>
      <LoadState polled={polled} what="instances" />
      {data && (
        <TableWrap label="Instances">
          <table>
            <thead>
              <tr>
                <th scope="col">Instance</th>
                <th scope="col">Host</th>
                <th scope="col" class="num">
                  PID
                </th>
                <th scope="col">Version</th>
                <th scope="col">Store</th>
                <th scope="col">Breaker</th>
                <th scope="col">Started</th>
                <th scope="col">Last stats flush</th>
                <th scope="col">Last heartbeat</th>
              </tr>
            </thead>
            <tbody>
              {data.instances.map((i) => (
                <tr key={i.id} data-testid="instance-row" class={i.self ? 'self' : undefined}>
                  <th scope="row">
                    <code>{i.id}</code>
                    {i.self && <span class="badge badge-self">this instance</span>}
                  </th>
                  <td>{i.host}</td>
                  <td class="num">{i.pid}</td>
                  <td>{i.version}</td>
                  <td>
                    {i.store}
                    {i.fallback && <span class="badge badge-bad">fallback</span>}
                  </td>
                  <td>
                    <span class={`badge ${i.breaker === 'open' ? 'badge-bad' : 'badge-ok'}`}>
                      {i.breaker}
                    </span>
                  </td>
                  <td>{fmtTime(i.startedAt)}</td>
                  <td>{fmtAgo(i.lastFlushAt, now)}</td>
                  <td>{fmtAgo(i.lastBeatAt, now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
