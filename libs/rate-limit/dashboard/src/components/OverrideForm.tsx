import { useState } from 'preact/hooks';
import { useAction } from '../action';
import { ApiError, enc, request } from '../api';
import { CLIENT_ACTIONS, type ClientAction } from '../types';
import { ActionStatus } from './ActionStatus';
import { countOrText } from './fields';

const EMPTY = {
  identity: '',
  action: 'quota' as ClientAction,
  limit: '',
  window: '',
  burst: '',
  message: '',
  expiresIn: '',
};

/** Sets (replaces) one client's override; blank fields are left out of the body. */
export function OverrideForm({ base, onSaved }: { base: string; onSaved: () => void }) {
  const [f, setF] = useState(EMPTY);
  const save = useAction();
  const set = (key: keyof typeof EMPTY) => (e: Event) => {
    const value = (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;
    setF((x) => ({ ...x, [key]: value }));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const identity = f.identity.trim();
    if (!identity)
      return save.run(async () => {
        throw new ApiError(0, ['Enter the client identity.']);
      });
    const body: Record<string, unknown> = { action: f.action };
    if (f.action === 'quota') {
      if (f.limit.trim()) body.limit = countOrText(f.limit);
      if (f.window.trim()) body.window = f.window.trim();
      if (f.burst.trim()) body.burst = countOrText(f.burst);
    }
    if (f.action === 'deny' && f.message.trim()) body.message = f.message.trim();
    if (f.expiresIn.trim()) body.expiresIn = f.expiresIn.trim();
    const ok = await save.run(
      () => request(`${base}/clients/${enc(identity)}`, { method: 'PUT', body }),
      `Set a ${f.action} override for ${identity}.`,
    );
    if (ok) {
      setF(EMPTY);
      onSaved();
    }
  };

  return (
    <form class="form inline-form" data-testid="override-form" onSubmit={submit} noValidate>
      <h3>Set a client override</h3>
      <div class="grid-fields">
        <div class="field wide">
          <label for="ov-identity">Client identity</label>
          <input
            id="ov-identity"
            data-testid="override-identity"
            autocomplete="off"
            spellcheck={false}
            value={f.identity}
            onInput={set('identity')}
          />
        </div>
        <div class="field">
          <label for="ov-action">Action</label>
          <select
            id="ov-action"
            data-testid="override-action"
            value={f.action}
            onChange={set('action')}
          >
            {CLIENT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        {f.action === 'quota' && (
          <>
            <div class="field">
              <label for="ov-limit">Limit</label>
              <input
                id="ov-limit"
                data-testid="override-limit"
                inputMode="numeric"
                autocomplete="off"
                value={f.limit}
                onInput={set('limit')}
              />
            </div>
            <div class="field">
              <label for="ov-window">Window</label>
              <input
                id="ov-window"
                data-testid="override-window"
                autocomplete="off"
                placeholder="e.g. 1m"
                value={f.window}
                onInput={set('window')}
              />
            </div>
            <div class="field">
              <label for="ov-burst">Burst</label>
              <input
                id="ov-burst"
                data-testid="override-burst"
                inputMode="numeric"
                autocomplete="off"
                value={f.burst}
                onInput={set('burst')}
              />
            </div>
          </>
        )}
        {f.action === 'deny' && (
          <div class="field wide">
            <label for="ov-message">Message to the client</label>
            <input
              id="ov-message"
              data-testid="override-message"
              maxLength={200}
              autocomplete="off"
              placeholder="Forbidden"
              value={f.message}
              onInput={set('message')}
            />
          </div>
        )}
        <div class="field">
          <label for="ov-expires">Expires in</label>
          <input
            id="ov-expires"
            data-testid="override-expires"
            autocomplete="off"
            placeholder="e.g. 1h; blank: never"
            value={f.expiresIn}
            onInput={set('expiresIn')}
          />
        </div>
      </div>
      <p class="hint">
        {f.action === 'quota'
          ? "Blank thresholds are the policy's (or the client's tier's)."
          : f.action === 'allow'
            ? 'The client is never limited (its requests are still counted).'
            : 'Every request of the client is rejected with the message.'}
      </p>
      <ActionStatus action={save} testId="override-error" />
      <div class="buttons">
        <button type="submit" data-testid="save-override" disabled={save.busy}>
          Set override
        </button>
      </div>
    </form>
  );
}
