// A field's refusal (ours or the engine's), tied to its input by id for screen readers.
import { useEngine } from '../store-context.js';
import { sentence } from '../../store/error-words.js';
import { useWords } from '../i18n/use-words.js';

/** The message refusing `field`, if any. */
export function useFieldError(field: string): string | null {
  const { t } = useWords();
  const errors = useEngine((s) => s.fieldErrors);
  const e = errors.find((x) => x.field === field);
  if (!e) return null;
  const allowed = e.allowed
    ? ` ${t('app.errors.chooseOneOf', { values: e.allowed.join(t('app.comma')) })}`
    : '';
  return sentence(e.message, t) + allowed;
}

export function FieldError(props: { id: string; message: string | null }) {
  if (!props.message) return null;
  return (
    <p id={props.id} role="alert" className="field-error">
      {props.message}
    </p>
  );
}
