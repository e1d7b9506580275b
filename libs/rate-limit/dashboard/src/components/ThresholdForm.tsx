import { useEffect, useState } from 'preact/hooks';
import { confirmed, useAction } from '../action';
import { enc, request } from '../api';
import { ALGORITHMS, MODES, type PolicyView } from '../types';
import { ActionStatus } from './ActionStatus';
import { SelectField, TextField } from './Field';
import { changes, fieldsNamed, fieldsOf, type Fields } from './fields';

export function ThresholdForm({
  policy,
  onSaved,
}: {
  policy: PolicyView;
  onSaved: (p: PolicyView) => void;
}) {
  const [was, setWas] = useState(() => fieldsOf(policy));
  const [fields, setFields] = useState(was);
  const save = useAction();
  const body = changes(fields, was);
  const dirty = Object.keys(body).length > 0;

  // Follow changes made elsewhere (another operator, another instance) in every field this
  // operator has not touched; a touched one keeps what was typed. Saving then sends only the
  // touched fields, so it never reverts what someone else set meanwhile.
  useEffect(() => {
    const fresh = fieldsOf(policy);
    setFields((now) => {
      const merged = { ...fresh };
      for (const key of Object.keys(fresh) as (keyof Fields)[]) {
        if (now[key] !== was[key]) (merged as Record<keyof Fields, unknown>)[key] = now[key];
      }
      return merged;
    });
    setWas(fresh);
  }, [JSON.stringify(fieldsOf(policy))]);

  const set = <K extends keyof Fields>(key: K, value: Fields[K]) =>
    setFields((f) => ({ ...f, [key]: value }));
  const bad = fieldsNamed(save.errors);
  const invalid = (name: string) => ({ invalid: bad.has(name), errorId: 'threshold-error' });
  const path = `/policies/${enc(policy.name)}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!dirty) return;
    await save.run(
      async () => {
        const view = await request<PolicyView>(path, { method: 'PATCH', body });
        onSaved(view);
        setFields(fieldsOf(view));
        setWas(fieldsOf(view));
      },
      `Saved ${Object.keys(body).join(', ')}.`,
    );
  };

  const revert = async () => {
    if (
      !confirmed(`Drop the runtime override of ${policy.name} and go back to the defaults in code?`)
    )
      return;
    await save.run(async () => {
      const view = await request<PolicyView>(`${path}/override`, { method: 'DELETE' });
      onSaved(view);
      setFields(fieldsOf(view));
      setWas(fieldsOf(view));
    }, 'Back to the defaults.');
  };

  return (
    <form class="form" data-testid="threshold-form" onSubmit={submit} noValidate>
      <div class="grid-fields">
        <TextField
          id="th-limit"
          label="Limit"
          testId="field-limit"
          numeric
          value={fields.limit}
          onValue={(v) => set('limit', v)}
          {...invalid('limit')}
        />
        <TextField
          id="th-window"
          label="Window"
          testId="field-window"
          hint="e.g. 500ms, 30s, 5m, 1h"
          value={fields.window}
          onValue={(v) => set('window', v)}
          {...invalid('window')}
        />
        <TextField
          id="th-burst"
          label="Burst"
          testId="field-burst"
          numeric
          value={fields.burst}
          onValue={(v) => set('burst', v)}
          {...invalid('burst')}
        />
        <SelectField
          id="th-algo"
          label="Algorithm"
          testId="field-algo"
          options={ALGORITHMS}
          value={fields.algo}
          onValue={(v) => set('algo', v)}
          {...invalid('algo')}
        />
        <SelectField
          id="th-mode"
          label="Mode"
          testId="field-mode"
          options={MODES}
          value={fields.mode}
          onValue={(v) => set('mode', v)}
          {...invalid('mode')}
        />
        <div class="field field-check">
          <input
            id="th-enabled"
            type="checkbox"
            data-testid="field-enabled"
            checked={fields.enabled}
            onChange={(e) => set('enabled', e.currentTarget.checked)}
          />
          <label for="th-enabled">Enabled</label>
        </div>
      </div>
      {fields.algo !== was.algo && (
        <p class="hint warn">Changing the algorithm starts every client afresh.</p>
      )}
      <ActionStatus action={save} testId="threshold-error" id="threshold-error" />
      <div class="buttons">
        <button type="submit" data-testid="save-thresholds" disabled={save.busy || !dirty}>
          Save changes
        </button>
        <button
          type="button"
          class="secondary"
          disabled={save.busy || !dirty}
          onClick={() => {
            setFields(was);
            save.clear();
          }}
        >
          Discard
        </button>
        <button
          type="button"
          class="danger"
          data-testid="revert-defaults"
          disabled={save.busy || policy.override === null}
          onClick={revert}
        >
          Revert to defaults
        </button>
      </div>
    </form>
  );
}
