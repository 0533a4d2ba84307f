// A setting with a few values, as a group of radio buttons under a legend.
import { useId } from 'react';
import type { ClientConfig } from '../../../contracts/client-config.js';
import { useActions } from '../store-context.js';
import { useSetting } from './use-setting.js';
import { FieldError, useFieldError } from '../forms/field-error.js';

export type ChoiceKey = 'split' | 'obfuscation' | 'mode' | 'protocol' | 'encryption' | 'api_access';

export interface Choice<V extends string> {
  value: V;
  label: string;
  hint?: string;
  /** Other values of the setting that mean the same (shown as this choice). */
  aliases?: readonly V[];
}

export function ChoiceSetting<K extends ChoiceKey>(props: {
  name: K;
  legend: string;
  choices: readonly Choice<ClientConfig[K]>[];
}) {
  const id = useId();
  const value = useSetting(props.name);
  const { patchConfig } = useActions();
  const error = useFieldError(props.name);
  return (
    <fieldset
      className="setting setting--choice"
      aria-describedby={error ? `${id}-error` : undefined}
    >
      <legend className="setting__label">{props.legend}</legend>
      {props.choices.map((c) => (
        <div key={c.value} className="choice">
          <input
            id={`${id}-${c.value}`}
            type="radio"
            name={`${id}-${props.name}`}
            value={c.value}
            checked={value === c.value || (value !== undefined && !!c.aliases?.includes(value))}
            aria-describedby={c.hint ? `${id}-${c.value}-hint` : undefined}
            onChange={() => void patchConfig({ [props.name]: c.value })}
          />
          <label htmlFor={`${id}-${c.value}`}>{c.label}</label>
          {c.hint ? (
            <p id={`${id}-${c.value}-hint`} className="hint">
              {c.hint}
            </p>
          ) : null}
        </div>
      ))}
      <FieldError id={`${id}-error`} message={error} />
    </fieldset>
  );
}
