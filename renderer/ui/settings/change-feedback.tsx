// What the last settings change did, said once it is done (a polite live region).
import { configEffectWords, configSavingWords } from '../../../contracts/words/effects.js';
import { useWords } from '../i18n/use-words.js';
import { useEngine } from '../store-context.js';

export function ChangeFeedback() {
  const { t } = useWords();
  const words = configEffectWords(t).app;
  const saving = useEngine((s) => s.busy.config === true);
  const change = useEngine((s) => s.configChange);
  const text = saving
    ? configSavingWords(t)
    : change
      ? words[change.changed.length === 0 ? 'unchanged' : change.effect]
      : '';
  return (
    <p role="status" className="change-feedback">
      {text}
    </p>
  );
}
