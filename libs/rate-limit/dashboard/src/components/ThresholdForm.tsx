import { useEffect, useState } from 'preact/hooks';
import { confirmed, useAction } from '../action';
import { enc, request } from '../api';
import { ALGORITHMS, MODES, type PolicyView } from '../types';
import { ActionStatus } from './ActionStatus';
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
  const invalid = (name: string) =>
    bad.has(name) ? { 'aria-invalid': true as const, 'aria-describedby': 'threshold-error' } : {};
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
        <div class="field">
          <label for="th-limit">Limit</label>
          <input
            id="th-limit"
            data-testid="field-limit"
            inputMode="numeric"
            autocomplete="off"
            value={fields.limit}
            onInput={(e) => set('limit', e.currentTarget.value)}
            {...invalid('limit')}
          />
        </div>
        <div class="field">
          <label for="th-window">Window</label>
          <input
            id="th-window"
            data-testid="field-window"
            autocomplete="off"
            value={fields.window}
            aria-describedby="th-window-hint"
            onInput={(e) => set('window', e.currentTarget.value)}
            {...invalid('window')}
          />
          <small id="th-window-hint" class="hint">
            e.g. 500ms, 30s, 5m, 1h
          </small>
        </div>
        <div class="field">
          <label for="th-burst">Burst</label>
          <input
            id="th-burst"
            data-testid="field-burst"
            inputMode="numeric"
            autocomplete="off"
            value={fields.burst}
            onInput={(e) => set('burst', e.currentTarget.value)}
            {...invalid('burst')}
          />
        </div>
        <div class="field">
          <label for="th-algo">Algorithm</label>
          <select
            id="th-algo"
            data-testid="field-algo"
            value={fields.algo}
            onChange={(e) => set('algo', e.currentTarget.value)}
            {...invalid('algo')}
          >
            {ALGORITHMS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="th-mode">Mode</label>
          <select
            id="th-mode"
            data-testid="field-mode"
            value={fields.mode}
            onChange={(e) => set('mode', e.currentTarget.value)}
            {...invalid('mode')}
          >
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
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
