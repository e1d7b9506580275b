import type { Action } from '../action';

/**
 * The outcome of a write next to the control that made it: errors as an alert, success as a
 * polite status. Both regions stay in the DOM so screen readers announce their changes.
 */
export function ActionStatus({
  action,
  testId,
  id,
}: {
  action: Action;
  testId?: string;
  id?: string;
}) {
  return (
    <>
      <div
        id={id}
        class="error"
        role="alert"
        data-testid={testId}
        hidden={action.errors.length === 0}
      >
        {action.errors.length === 1 ? (
          action.errors[0]
        ) : (
          <ul>
            {action.errors.map((m, i) => (
              <li key={i}>{m}</li>
            ))}
          </ul>
        )}
      </div>
      <p class="ok" role="status">
        {action.done}
      </p>
    </>
  );
}
