import { useCallback, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Action {
  busy: boolean;
  /** The server's messages of the last failed attempt (one per validation problem). */
  errors: string[];
  /** What the last successful attempt did, for a polite status line. */
  done: string | null;
  run: (work: () => Promise<unknown>, doneText?: string) => Promise<boolean>;
  clear: () => void;
}

/** Busy flag, error messages and success note of one write (a save, a reset, a removal). */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [done, setDone] = useState<string | null>(null);
  const run = useCallback(async (work: () => Promise<unknown>, doneText?: string) => {
    setBusy(true);
    setErrors([]);
    setDone(null);
    try {
      await work();
      setDone(doneText ?? null);
      return true;
    } catch (e) {
      if (e instanceof ApiError) {
        const prefix = statusPrefix(e.status);
        setErrors(prefix ? [prefix, ...e.messages] : e.messages);
      } else setErrors([String(e)]);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => {
    setErrors([]);
    setDone(null);
  }, []);
  return { busy, errors, done, run, clear };
}

function statusPrefix(status: number): string | null {
  switch (status) {
    case 404:
      return 'Not found (it may have been removed meanwhile).';
    case 409:
      return 'Conflict: nothing was changed.';
    case 503:
      return 'Redis is unavailable: nothing was changed.';
    default:
      return null;
  }
}

/** Destructive steps ask first; tests accept the dialog. */
export const confirmed = (question: string): boolean => window.confirm(question);
