import type { Action } from '../action';

/**
 * A row's action button: its visible word, and for screen readers whom it acts on (a table of
 * "Reset" buttons is otherwise a list of identical names).
 */
export function RowAction({
  testId,
  label,
  target,
  action,
  danger = false,
  onClick,
}: {
  testId: string;
  label: string;
  target: string;
  action: Action;
  danger?: boolean;
  onClick: () => void;
}) {
  return (
    <td class="actions">
      <button
        type="button"
        class={danger ? 'small danger' : 'small'}
        data-testid={testId}
        disabled={action.busy}
        onClick={onClick}
      >
        {label}
        <span class="sr-only"> {target}</span>
      </button>
    </td>
  );
}

/** "More ..." under a paged list, while the listing has a next page. */
export function MoreButton({
  cursor,
  action,
  what,
  onClick,
}: {
  cursor: string | null;
  action: Action;
  what: string;
  onClick: () => void;
}) {
  if (cursor === null) return null;
  return (
    <div class="buttons">
      <button type="button" class="secondary" disabled={action.busy} onClick={onClick}>
        {action.busy ? 'Loading…' : `More ${what}`}
      </button>
    </div>
  );
}
