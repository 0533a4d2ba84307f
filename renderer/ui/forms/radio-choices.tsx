// A form's group of radio choices: a fieldset with its legend, each choice with its label and
// (when it has one) its hint, and the group's field error. The forms of the app's screens (a
// device's kind, a split rule's kind and way) are made of it.
import { FieldError } from './field-error.js';

export interface RadioChoice<T extends string> {
  value: T;
  label: string;
  hint?: string;
}

export function RadioChoices<T extends string>(props: {
  /** Unique on the page (useId()): the inputs' ids and the group's name derive from it. */
  id: string;
  legend: string;
  choices: readonly RadioChoice<T>[];
  value: T;
  onChange: (value: T) => void;
  error?: string | null;
  className?: string;
}) {
  const { id, choices, value, onChange, error } = props;
  return (
    <fieldset
      className={`setting setting--choice${props.className ? ` ${props.className}` : ''}`}
      aria-describedby={error ? `${id}-error` : undefined}
    >
      <legend className="setting__label">{props.legend}</legend>
      {choices.map((c) => (
        <div key={c.value} className="choice">
          <input
            id={`${id}-${c.value}`}
            type="radio"
            name={id}
            value={c.value}
            checked={value === c.value}
            aria-describedby={c.hint ? `${id}-${c.value}-hint` : undefined}
            onChange={() => onChange(c.value)}
          />
          <label htmlFor={`${id}-${c.value}`}>{c.label}</label>
          {c.hint ? (
            <p id={`${id}-${c.value}-hint`} className="hint">
              {c.hint}
            </p>
          ) : null}
        </div>
      ))}
      <FieldError id={`${id}-error`} message={error ?? null} />
    </fieldset>
  );
}
