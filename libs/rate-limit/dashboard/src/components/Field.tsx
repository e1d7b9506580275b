/** A labelled form control, with an optional hint, marked invalid when the API named it. */
interface FieldProps {
  id: string;
  label: string;
  testId: string;
  value: string;
  onValue: (value: string) => void;
  /** The API named this field in its last answer: described by the form's error line. */
  invalid?: boolean;
  errorId?: string;
  wide?: boolean;
}

const describedBy = (...ids: (string | false | undefined)[]) =>
  ids.filter(Boolean).join(' ') || undefined;

export function TextField(
  props: FieldProps & {
    numeric?: boolean;
    placeholder?: string;
    maxLength?: number;
    hint?: string;
    spellcheck?: boolean;
  },
) {
  const { id, label, testId, value, onValue, invalid, errorId, wide, hint } = props;
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div class={wide ? 'field wide' : 'field'}>
      <label for={id}>{label}</label>
      <input
        id={id}
        data-testid={testId}
        inputMode={props.numeric ? 'numeric' : undefined}
        autocomplete="off"
        spellcheck={props.spellcheck}
        placeholder={props.placeholder}
        maxLength={props.maxLength}
        value={value}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy(hintId, invalid && errorId)}
        onInput={(e) => onValue(e.currentTarget.value)}
      />
      {hint && (
        <small id={hintId} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function SelectField(props: FieldProps & { options: readonly string[] }) {
  const { id, label, testId, value, onValue, invalid, errorId, options } = props;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        data-testid={testId}
        value={value}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy(invalid && errorId)}
        onChange={(e) => onValue(e.currentTarget.value)}
      >
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </div>
  );
}
