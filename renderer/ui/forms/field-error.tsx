// A field's refusal (ours or the engine's), tied to its input by id for screen readers.
import { useEngine } from '../store-context.js';
import { sentence } from '../../store/error-words.js';

/** The message refusing `field`, if any. */
export function useFieldError(field: string): string | null {
  const errors = useEngine((s) => s.fieldErrors);
  const e = errors.find((x) => x.field === field);
  if (!e) return null;
  const allowed = e.allowed ? ` Choose one of: ${e.allowed.join(', ')}.` : '';
  return sentence(e.message) + allowed;
}

export function FieldError(props: { id: string; message: string | null }) {
  if (!props.message) return null;
  return (
    <p id={props.id} role="alert" className="field-error">
      {props.message}
    </p>
  );
}
