// The engine's refusals of settings this screen has no field for (a newer engine's keys).
import { useEngine } from '../store-context.js';
import { sentence } from '../../store/error-words.js';
import { useWords } from '../i18n/use-words.js';

export function OtherFieldErrors(props: { shown: readonly string[] }) {
  const { t } = useWords();
  const errors = useEngine((s) => s.fieldErrors);
  const rest = errors.filter((e) => !props.shown.includes(e.field));
  if (rest.length === 0) return null;
  return (
    <ul className="field-error">
      {rest.map((e) => (
        <li key={`${e.field}:${e.message}`}>{sentence(e.message, t)}</li>
      ))}
    </ul>
  );
}
