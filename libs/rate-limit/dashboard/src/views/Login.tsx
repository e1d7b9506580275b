import { useState } from 'preact/hooks';
import { ApiError, request, setToken } from '../api';
import { fmtDuration } from '../format';

interface Props {
  /** Why the user is back here (session ended), shown until the next attempt. */
  notice: string | null;
  onSignedIn: () => void;
}

/** The server's 429 message, and what it means for the operator. */
export function tooMany(e: ApiError): string {
  const wait = e.retryAfter
    ? ` Try again in ${fmtDuration(e.retryAfter * 1000)}.`
    : ' Wait before trying again.';
  return `${e.message}. Sign-in is blocked for this address: too many failed attempts were made.${wait}`;
}

function loginError(e: unknown): string {
  if (!(e instanceof ApiError)) return 'Sign-in failed.';
  if (e.status === 401) return 'Wrong token';
  if (e.status === 429) return tooMany(e);
  return `Sign-in failed: ${e.message}`;
}

export function Login({ notice, onSignedIn }: Props) {
  const [token, setTokenText] = useState('');
  const [error, setError] = useState<string | null>(notice);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const candidate = token.trim();
    if (candidate === '') {
      setError('Enter the admin token.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // Any authenticated route proves the token; the policies list is the cheapest useful one.
      await request('/policies', { token: candidate });
      setToken(candidate);
      onSignedIn();
    } catch (err) {
      setError(loginError(err));
      setBusy(false);
    }
  };

  return (
    <main id="main" class="login">
      <h1>Rate limit dashboard</h1>
      <form class="card login-card" data-testid="login-form" onSubmit={submit} noValidate>
        <label for="token-input">Admin token</label>
        <input
          id="token-input"
          data-testid="token-input"
          type="password"
          name="token"
          autocomplete="off"
          spellcheck={false}
          value={token}
          aria-invalid={error !== null && error !== notice ? 'true' : undefined}
          aria-describedby="login-help login-error"
          onInput={(e) => setTokenText(e.currentTarget.value)}
        />
        <p id="login-help" class="hint">
          The bearer token of the admin API. It is kept in this tab only and forgotten when you
          close it.
        </p>
        <p
          id="login-error"
          class="error"
          role="alert"
          data-testid="login-error"
          hidden={error === null}
        >
          {error}
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
