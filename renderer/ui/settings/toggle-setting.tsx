// An on/off setting of the engine's configuration, as a labelled checkbox.
import { useId } from 'react';
import { useActions } from '../store-context.js';
import { useSetting } from './use-setting.js';
import { FieldError, useFieldError } from '../forms/field-error.js';

export type BooleanKey = 'kill_switch' | 'lockdown' | 'allow_lan';

export function ToggleSetting(props: { name: BooleanKey; label: string; hint: string }) {
  const id = useId();
  const value = useSetting(props.name);
  const { patchConfig } = useActions();
  const error = useFieldError(props.name);
  return (
    <div className="setting setting--toggle">
      <input
        id={id}
        type="checkbox"
        className="checkbox"
        checked={value === true}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        aria-invalid={error ? true : undefined}
        onChange={(e) => void patchConfig({ [props.name]: e.target.checked })}
      />
      <div>
        <label htmlFor={id} className="setting__label">
          {props.label}
        </label>
        <p id={`${id}-hint`} className="hint">
          {props.hint}
        </p>
        <FieldError id={`${id}-error`} message={error} />
      </div>
    </div>
  );
}
