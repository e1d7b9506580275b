import { request } from '../api';
import { Badges } from '../components/Badges';
import { LoadState } from '../components/LoadState';
import { Sparkline } from '../components/Sparkline';
import { fmtCount, fmtDuration } from '../format';
import { usePoll } from '../poll';
import { hrefOf } from '../router';
import type { AllTraffic, PolicyView } from '../types';

export function Overview() {
  const policies = usePoll<PolicyView[]>('policies', () => request('/policies'));
  const traffic = usePoll<AllTraffic>('traffic', () => request('/traffic?minutes=60'));

  return (
    <>
      <div class="view-head">
        <h1>Policies</h1>
        <p class="hint">
          Effective thresholds, totals since the stats began, and the last hour of traffic.
        </p>
      </div>
      <LoadState polled={policies} what="policies" />
      {policies.data && policies.data.length === 0 && <p>No policies are declared.</p>}
      <ul class="policy-grid" aria-label="Policies">
        {policies.data?.map((p) => (
          <li key={p.name} class="card policy-card" data-testid={`policy-row-${p.name}`}>
            <h2 class="policy-title">
              <a href={hrefOf.policy(p.name)}>{p.name}</a>
            </h2>
            <p class="policy-sub">
              {p.algo} <Badges policy={p} />
            </p>
            <dl class="facts">
              <div>
                <dt>Limit</dt>
                <dd>
                  {fmtCount(p.limit)} / {fmtDuration(p.windowMs)}
                </dd>
              </div>
              <div>
                <dt>Burst</dt>
                <dd>{fmtCount(p.burst)}</dd>
              </div>
              <div>
                <dt>Allowed</dt>
                <dd class="num">{fmtCount(p.stats.allowed)}</dd>
              </div>
              <div>
                <dt>Rejected</dt>
                <dd class="num">
                  {fmtCount(p.stats.rejected)}
                  {p.stats.shadowRejected > 0 && (
                    <span class="muted shadow-count">
                      {' '}
                      +{fmtCount(p.stats.shadowRejected)} shadow
                    </span>
                  )}
                </dd>
              </div>
            </dl>
            <Sparkline series={traffic.data?.policies[p.name]} />
          </li>
        ))}
      </ul>
    </>
  );
}
