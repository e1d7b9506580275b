import { useState } from 'preact/hooks';
import { useAction } from '../action';
import { ApiError, enc, request } from '../api';
import { CLIENT_ACTIONS, type ClientAction } from '../types';
import { ActionStatus } from './ActionStatus';
import { SelectField, TextField } from './Field';
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
  const put = (key: keyof typeof EMPTY) => (value: string) => setF((x) => ({ ...x, [key]: value }));

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
        <TextField
          id="ov-identity"
          label="Client identity"
          testId="override-identity"
          wide
          spellcheck={false}
          value={f.identity}
          onValue={put('identity')}
        />
        <SelectField
          id="ov-action"
          label="Action"
          testId="override-action"
          options={CLIENT_ACTIONS}
          value={f.action}
          onValue={put('action')}
        />
        {f.action === 'quota' && (
          <>
            <TextField
              id="ov-limit"
              label="Limit"
              testId="override-limit"
              numeric
              value={f.limit}
              onValue={put('limit')}
            />
            <TextField
              id="ov-window"
              label="Window"
              testId="override-window"
              placeholder="e.g. 1m"
              value={f.window}
              onValue={put('window')}
            />
            <TextField
              id="ov-burst"
              label="Burst"
              testId="override-burst"
              numeric
              value={f.burst}
              onValue={put('burst')}
            />
          </>
        )}
        {f.action === 'deny' && (
          <TextField
            id="ov-message"
            label="Message to the client"
            testId="override-message"
            wide
            maxLength={200}
            placeholder="Forbidden"
            value={f.message}
            onValue={put('message')}
          />
        )}
        <TextField
          id="ov-expires"
          label="Expires in"
          testId="override-expires"
          placeholder="e.g. 1h; blank: never"
          value={f.expiresIn}
          onValue={put('expiresIn')}
        />
      </div>
      <p class="hint">
        {f.action === 'quota'
          ? "Blank thresholds are the policy's (or the client's tier's)."
          : f.action === 'allow'
            ? 'The client is never limited (its requests are still counted).'
            : "Every request of the client is rejected with the message ('Forbidden' when left blank)."}
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
