// What the last settings change did, said once it is done (a polite live region).
import { CONFIG_EFFECT_WORDS, CONFIG_SAVING_WORDS } from '../../../contracts/words/effects.js';
import { useEngine } from '../store-context.js';

const WORDS = CONFIG_EFFECT_WORDS.app;

export function ChangeFeedback() {
  const saving = useEngine((s) => s.busy.config === true);
  const change = useEngine((s) => s.configChange);
  const text = saving
    ? CONFIG_SAVING_WORDS
    : change
      ? WORDS[change.changed.length === 0 ? 'unchanged' : change.effect]
      : '';
  return (
    <p role="status" className="change-feedback">
      {text}
    </p>
  );
}
