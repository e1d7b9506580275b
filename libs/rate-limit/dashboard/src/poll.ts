import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

export const POLL_MS = 5000;

export interface Polled<T> {
  /** The last good answer; kept while refreshing and after a failed refresh (no blank view). */
  data: T | null;
  error: ApiError | null;
  /** The route answered 404: the server does not offer it (yet), or the thing is gone. */
  missing: boolean;
  loading: boolean;
  refresh: () => Promise<void>;
  /** Replace the data with a write's answer, without waiting for the next poll. */
  set: (data: T) => void;
}

/**
 * Fetches now and every `intervalMs` while the tab is visible; `key` changes restart it with
 * fresh state. One request at a time: a slow server is never piled up on.
 */
export function usePoll<T>(
  key: string,
  fetcher: () => Promise<T>,
  intervalMs = POLL_MS,
): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [missing, setMissing] = useState(false);
  const [loading, setLoading] = useState(true);
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;
  const inFlight = useRef(false);
  const generation = useRef(0);

  const refresh = useCallback(async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    const gen = generation.current;
    try {
      const result = await fetcherRef.current();
      if (gen !== generation.current) return;
      setData(result);
      setError(null);
      setMissing(false);
    } catch (e) {
      if (gen !== generation.current) return;
      if (e instanceof ApiError) {
        setMissing(e.status === 404);
        setError(e.status === 404 ? null : e);
      } else {
        setError(new ApiError(0, [String(e)]));
      }
    } finally {
      inFlight.current = false;
      if (gen === generation.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    generation.current++;
    inFlight.current = false;
    setData(null);
    setError(null);
    setMissing(false);
    setLoading(true);
    void refresh();
    const tick = () => {
      if (document.visibilityState === 'visible') void refresh();
    };
    const timer = window.setInterval(tick, intervalMs);
    // Back from a hidden tab: show fresh numbers at once rather than up to 5 s later.
    document.addEventListener('visibilitychange', tick);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [key, intervalMs, refresh]);

  const set = useCallback((value: T) => setData(value), []);
  return { data, error, missing, loading, refresh, set };
}
