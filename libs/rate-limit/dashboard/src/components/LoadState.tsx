import type { Polled } from '../poll';

/**
 * Loading / failure / no-data line for a polled resource. A failed refresh keeps the old data
 * on screen and says so here instead of blanking the view.
 */
export function LoadState({
  polled,
  what,
}: {
  polled: Pick<Polled<unknown>, 'data' | 'error' | 'missing' | 'loading'>;
  what: string;
}) {
  if (polled.loading && polled.data === null)
    return (
      <p class="muted" role="status">
        Loading {what}…
      </p>
    );
  if (polled.missing && polled.data === null) return <p class="muted">No data.</p>;
  if (polled.error)
    return (
      <p class="error" role="alert">
        {polled.data === null
          ? `Could not load ${what}: `
          : `Showing the last ${what} received; refresh failed: `}
        {polled.error.message}
      </p>
    );
  return null;
}
