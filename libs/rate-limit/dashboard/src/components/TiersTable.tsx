import { useState } from 'preact/hooks';
import { confirmed, useAction } from '../action';
import { enc, request } from '../api';
import { fmtCount, fmtDuration, windowText } from '../format';
import type { PolicyView, TierView } from '../types';
import { ActionStatus } from './ActionStatus';
import { TableWrap } from './TableWrap';
import { countOrText } from './fields';

interface Props {
  base: string;
  policy: PolicyView;
  onSaved: (p: PolicyView) => void;
}

export function TiersTable({ base, policy, onSaved }: Props) {
  const [editing, setEditing] = useState<string | null>(null);
  const action = useAction();

  const revert = async (tier: TierView) => {
    if (!confirmed(`Drop the runtime override of tier ${tier.name}?`)) return;
    await action.run(async () => {
      onSaved(
        await request<PolicyView>(`${base}/tiers/${enc(tier.name)}/override`, { method: 'DELETE' }),
      );
    }, `Tier ${tier.name} is back to its declared thresholds.`);
  };

  return (
    <>
      <TableWrap label="Tier thresholds">
        <table>
          <thead>
            <tr>
              <th scope="col">Tier</th>
              <th scope="col" class="num">
                Limit
              </th>
              <th scope="col">Window</th>
              <th scope="col" class="num">
                Burst
              </th>
              <th scope="col" class="num">
                Allowed
              </th>
              <th scope="col" class="num">
                Rejected
              </th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {policy.tiers.map((t) => (
              <tr key={t.name} data-testid={`tier-row-${t.name}`}>
                <th scope="row">
                  {t.name} {t.override && <span class="badge badge-override">override</span>}
                </th>
                <td class="num">{fmtCount(t.limit)}</td>
                <td>{fmtDuration(t.windowMs)}</td>
                <td class="num">{fmtCount(t.burst)}</td>
                <td class="num">{fmtCount(t.stats.allowed)}</td>
                <td class="num">{fmtCount(t.stats.rejected)}</td>
                <td class="actions">
                  <button
                    type="button"
                    class="small secondary"
                    aria-expanded={editing === t.name}
                    onClick={() => {
                      action.clear();
                      setEditing(editing === t.name ? null : t.name);
                    }}
                  >
                    Edit<span class="sr-only"> tier {t.name}</span>
                  </button>{' '}
                  <button
                    type="button"
                    class="small danger"
                    disabled={!t.override || action.busy}
                    onClick={() => revert(t)}
                  >
                    Revert<span class="sr-only"> tier {t.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {editing && (
        <TierForm
          key={editing}
          base={base}
          tier={policy.tiers.find((t) => t.name === editing)!}
          onDone={(p) => {
            onSaved(p);
            setEditing(null);
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      <ActionStatus action={action} />
    </>
  );
}

interface FormProps {
  base: string;
  tier: TierView;
  onDone: (p: PolicyView) => void;
  onCancel: () => void;
}

function TierForm({ base, tier, onDone, onCancel }: FormProps) {
  const initial = {
    limit: String(tier.limit),
    window: windowText(tier.windowMs),
    burst: String(tier.burst),
  };
  const [f, setF] = useState(initial);
  const save = useAction();
  const id = (field: string) => `tier-${field}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = {};
    if (f.limit.trim() !== initial.limit) body.limit = countOrText(f.limit);
    if (f.window.trim() !== initial.window) body.window = f.window.trim();
    if (f.burst.trim() !== initial.burst) body.burst = countOrText(f.burst);
    if (Object.keys(body).length === 0) return onCancel();
    await save.run(async () => {
      onDone(
        await request<PolicyView>(`${base}/tiers/${enc(tier.name)}`, { method: 'PATCH', body }),
      );
    });
  };

  return (
    <form
      class="form inline-form"
      onSubmit={submit}
      noValidate
      aria-label={`Edit tier ${tier.name}`}
    >
      <h3>Edit tier {tier.name}</h3>
      <div class="grid-fields">
        {(['limit', 'window', 'burst'] as const).map((k) => (
          <div class="field" key={k}>
            <label for={id(k)}>{k[0].toUpperCase() + k.slice(1)}</label>
            <input
              id={id(k)}
              autocomplete="off"
              inputMode={k === 'window' ? undefined : 'numeric'}
              value={f[k]}
              onInput={(e) => {
                const v = e.currentTarget.value;
                setF((x) => ({ ...x, [k]: v }));
              }}
            />
          </div>
        ))}
      </div>
      <ActionStatus action={save} testId="tier-error" />
      <div class="buttons">
        <button type="submit" disabled={save.busy}>
          Save tier
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
