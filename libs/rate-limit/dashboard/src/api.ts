// The one way to the admin API: base path, bearer token, JSON errors.

const TOKEN_KEY = 'rate-limit-dashboard.token';

/** The server writes the API's base into a meta tag; the dev server leaves it empty. */
function apiBase(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="rate-limit-api"]');
  const fromServer = meta?.content.trim() ?? '';
  // The page lives at `<base>/dashboard/`.
  const base = fromServer !== '' ? fromServer : new URL('..', location.href).pathname;
  return base.replace(/\/+$/, '');
}

export const API_BASE = apiBase();

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The server's messages; validation errors give one per problem, naming the field. */
    readonly messages: string[],
    /** Seconds from a 429's Retry-After header. */
    readonly retryAfter?: number,
  ) {
    super(messages.join('; ') || `HTTP ${status}`);
  }
}

// sessionStorage only: the token dies with the tab and never lands in the URL or on disk.
export const getToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const setToken = (token: string): void => sessionStorage.setItem(TOKEN_KEY, token);
export const clearToken = (): void => sessionStorage.removeItem(TOKEN_KEY);

type Listener = (error: ApiError) => void;
let onUnauthorized: Listener = () => {};
/**
 * Called when a signed-in request is refused for its token: 401 (rotated or revoked), or 429
 * (a right token always passes, so the stored one is wrong and its failures are now limited).
 */
export function setUnauthorizedHandler(listener: Listener): void {
  onUnauthorized = listener;
}

async function messagesOf(res: Response): Promise<string[]> {
  try {
    const body = (await res.json()) as { message?: unknown; error?: unknown };
    const m = body.message ?? body.error;
    if (Array.isArray(m)) return m.map(String);
    if (typeof m === 'string' && m !== '') return [m];
  } catch {
    // Not JSON (a proxy's error page): fall through to the status text.
  }
  return [res.statusText || `HTTP ${res.status}`];
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** Use this token instead of the stored one, and do not sign out on 401 (login check). */
  token?: string;
  signal?: AbortSignal;
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const token = options.token ?? getToken() ?? '';
  const headers: Record<string, string> = {
    Authorization: `Bearer ${token}`,
    Accept: 'application/json',
  };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(API_BASE + path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      cache: 'no-store',
      signal: options.signal,
    });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError(0, ['The server cannot be reached']);
  }
  if (!res.ok) {
    const retryAfter = Number(res.headers.get('Retry-After')) || undefined;
    const error = new ApiError(res.status, await messagesOf(res), retryAfter);
    if (
      (res.status === 401 || res.status === 429) &&
      options.token === undefined &&
      getToken() !== null
    ) {
      clearToken();
      onUnauthorized(error);
    }
    throw error;
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

export const enc = encodeURIComponent;

/** `?a=1&b=x` from the defined entries only. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
