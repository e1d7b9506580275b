import { useAction } from '../action';
import { request } from '../api';
import { ActionStatus } from '../components/ActionStatus';
import { LoadState } from '../components/LoadState';
import { TableWrap } from '../components/TableWrap';
import { fmtAgo, fmtTime } from '../format';
import { usePoll } from '../poll';
import type { AdaptiveView } from '../types';

/** How long the dashboard's freeze holds (the API takes 1-1440 minutes). */
const FREEZE_MINUTES = 30;
const pct = (share: number) => `${Math.round(share * 100)} %`;

/**
 * Adaptive protection: each tier's effective share of its configured thresholds, every
 * instance's pressure as its heartbeat reported it, and the fleet loop's freeze and reset.
 */
export function Adaptive() {
  const polled = usePoll<AdaptiveView>('adaptive', () => request('/adaptive'), 2000);
  const action = useAction();
  const data = polled.data;
  const now = Date.now();
  const write = (path: string, method: 'POST' | 'DELETE', done: string, body?: unknown) =>
    action.run(async () => polled.set(await request<AdaptiveView>(path, { method, body })), done);
  return (
    <>
      <div class="view-head">
        <h1>Adaptive protection</h1>
        {data && (
          <p>
            Mode:{' '}
            <span class="badge" data-testid="adaptive-mode">
              {data.mode}
            </span>
            {' · '}fleet level{' '}
            <span data-testid="adaptive-level">{(data.state?.level ?? 0).toFixed(2)}</span>
            {' · '}boost {(data.state?.boost ?? 0).toFixed(2)}
            {' · '}local level {data.localLevel.toFixed(2)}
            {data.frozenUntil !== null && data.frozenUntil > now && ' '}
            {data.frozenUntil !== null && data.frozenUntil > now && (
              <span class="badge badge-bad" data-testid="adaptive-frozen">
                frozen until {fmtTime(data.frozenUntil)}
              </span>
            )}
          </p>
        )}
      </div>
      <LoadState polled={polled} what="adaptive protection" />
      {data && data.mode !== 'off' && (
        <>
          <div class="buttons">
            <button
              type="button"
              disabled={action.busy}
              onClick={() =>
                write('/adaptive/freeze', 'POST', `Frozen for ${FREEZE_MINUTES} minutes.`, {
                  minutes: FREEZE_MINUTES,
                })
              }
            >
              Freeze {FREEZE_MINUTES} min
            </button>
            <button
              type="button"
              class="secondary"
              disabled={action.busy}
              onClick={() => write('/adaptive/freeze', 'DELETE', 'Freeze lifted.')}
            >
              Unfreeze
            </button>
            <button
              type="button"
              class="secondary"
              disabled={action.busy}
              onClick={() =>
                write('/adaptive/reset', 'POST', 'Reset: configured thresholds at the next beat.')
              }
            >
              Reset
            </button>
          </div>
          <ActionStatus action={action} testId="adaptive-action" />
          <TableWrap label="Tiers">
            <table>
              <thead>
                <tr>
                  <th scope="col">Tier</th>
                  <th scope="col" class="num">
                    Effective / configured
                  </th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(data.multipliers).map(([tier, m]) => (
                  <tr key={tier} data-testid="adaptive-tier-row">
                    <th scope="row">{tier}</th>
                    <td class="num">{pct(m)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <TableWrap label="Instances' load">
            <table>
              <thead>
                <tr>
                  <th scope="col">Instance</th>
                  <th scope="col" class="num">
                    Pressure
                  </th>
                  <th scope="col">Dominant signal</th>
                  <th scope="col" class="num">
                    Req/s
                  </th>
                  <th scope="col" class="num">
                    Limited
                  </th>
                  <th scope="col">Reported</th>
                </tr>
              </thead>
              <tbody>
                {data.instances.map((i) => (
                  <tr key={i.id} data-testid="adaptive-instance-row">
                    <th scope="row">
                      <code>{i.id}</code>
                    </th>
                    <td class="num">{i.pressure.toFixed(2)}</td>
                    <td>{i.dominant}</td>
                    <td class="num">{i.rps}</td>
                    <td class="num">{pct(i.limited)}</td>
                    <td>{fmtAgo(i.reportedAt, now)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
    </>
  );
}
