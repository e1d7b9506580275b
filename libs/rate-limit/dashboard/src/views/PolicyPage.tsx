import { enc, request } from '../api';
import { AuditList } from '../components/AuditList';
import { Badges } from '../components/Badges';
import { ClientsPanel } from '../components/ClientsPanel';
import { LoadState } from '../components/LoadState';
import { OverridesPanel } from '../components/OverridesPanel';
import { ThresholdForm } from '../components/ThresholdForm';
import { TiersTable } from '../components/TiersTable';
import { TopRejected } from '../components/TopRejected';
import { TrafficChart } from '../components/TrafficChart';
import { fmtCount, fmtDuration } from '../format';
import { usePoll } from '../poll';
import { hrefOf } from '../router';
import type { PolicyTraffic, PolicyView } from '../types';

export function PolicyPage({ name }: { name: string }) {
  const base = `/policies/${enc(name)}`;
  const policy = usePoll<PolicyView>(`policy:${name}`, () => request(base));
  const traffic = usePoll<PolicyTraffic>(`traffic:${name}`, () =>
    request(`${base}/traffic?minutes=60`),
  );
  const p = policy.data;

  return (
    <>
      <p class="crumbs">
        <a href={hrefOf.overview()}>Policies</a> <span aria-hidden="true">/</span>
      </p>
      <div class="view-head">
        <h1>
          {name} {p && <Badges policy={p} />}
        </h1>
        {policy.missing && !p && <p class="error">No policy is named “{name}”.</p>}
        <LoadState polled={policy} what="the policy" />
        {p && (
          <>
            <dl class="facts facts-wide">
              <div>
                <dt>Algorithm</dt>
                <dd>{p.algo}</dd>
              </div>
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
                <dt>Mode</dt>
                <dd>{p.mode}</dd>
              </div>
              <div>
                <dt>Allowed</dt>
                <dd class="num" data-testid="policy-allowed">
                  {fmtCount(p.stats.allowed)}
                </dd>
              </div>
              <div>
                <dt>Rejected</dt>
                <dd class="num" data-testid="policy-rejected">
                  {fmtCount(p.stats.rejected)}
                </dd>
              </div>
              <div>
                <dt>Shadow-rejected</dt>
                <dd class="num">{fmtCount(p.stats.shadowRejected)}</dd>
              </div>
            </dl>
            {p.routes.length > 0 && (
              <p class="routes">
                Routes:{' '}
                {p.routes.map((r, i) => (
                  <code key={i}>
                    {r.method} {r.path}
                  </code>
                ))}
              </p>
            )}
          </>
        )}
      </div>

      <section aria-labelledby="traffic-h" class="card">
        <h2 id="traffic-h">Traffic, last hour</h2>
        <TrafficChart traffic={traffic.data} missing={traffic.missing} />
      </section>

      <div class="two-col">
        <section aria-labelledby="thresholds-h" class="card">
          <h2 id="thresholds-h">Thresholds</h2>
          {p ? <ThresholdForm policy={p} onSaved={policy.set} /> : <p class="muted">…</p>}
        </section>
        <section aria-labelledby="top-h" class="card">
          <h2 id="top-h">Most rejected clients, last 5 minutes</h2>
          <TopRejected base={base} />
        </section>
      </div>

      <section aria-labelledby="clients-h" class="card">
        <h2 id="clients-h">Clients</h2>
        <ClientsPanel base={base} />
      </section>

      {p && p.tiers.length > 0 && (
        <section aria-labelledby="tiers-h" class="card">
          <h2 id="tiers-h">Tiers</h2>
          <TiersTable base={base} policy={p} onSaved={policy.set} />
        </section>
      )}

      <section aria-labelledby="overrides-h" class="card">
        <h2 id="overrides-h">Client overrides</h2>
        <OverridesPanel base={base} />
      </section>

      <section aria-labelledby="audit-h" class="card">
        <h2 id="audit-h">Audit log</h2>
        <AuditList policy={name} />
      </section>
    </>
  );
}
