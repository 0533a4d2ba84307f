// A setting with many values (a language, a country), as a labelled select; a change goes to
// the engine at once.
import { useId } from 'react';
import type { ClientConfig } from '../../../contracts/client-config.js';
import { FieldError, useFieldError } from '../forms/field-error.js';
import { useActions } from '../store-context.js';
import { useSetting } from './use-setting.js';

export type SelectKey = 'language' | 'home_country';

export interface SelectChoice {
  value: string;
  label: string;
  /** The language the label is written in, when not the page's (a language's own name). */
  lang?: string;
}

export function SelectSetting<K extends SelectKey>(props: {
  name: K;
  label: string;
  hint: string;
  choices: readonly SelectChoice[];
  /** The select's id, for a link to it (e.g. from a notice on Home). */
  id?: string;
  /** The label for screen readers only (a card's title already says it). */
  hideLabel?: boolean;
}) {
  const own = useId();
  const id = props.id ?? own;
  const value = useSetting(props.name);
  const { patchConfig } = useActions();
  const error = useFieldError(props.name);
  return (
    <div className="setting inline-form">
      <label htmlFor={id} className={props.hideLabel ? 'visually-hidden' : 'setting__label'}>
        {props.label}
      </label>
      <select
        id={id}
        className="select"
        value={value ?? 'auto'}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        aria-invalid={error ? true : undefined}
        onChange={(e) =>
          void patchConfig({ [props.name]: e.target.value } as Partial<ClientConfig>)
        }
      >
        {props.choices.map((c) => (
          <option key={c.value} value={c.value} lang={c.lang}>
            {c.label}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="hint">
        {props.hint}
      </p>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
