// What the last settings change did, said once it is done (a polite live region).
import { useEngine } from '../store-context.js';

const EFFECT_WORDS = {
  saved: 'Saved.',
  applied: 'Saved and applied to the connection.',
  reconnected: 'Saved. Reconnected with the new settings.',
} as const;

export function ChangeFeedback() {
  const saving = useEngine((s) => s.busy.config === true);
  const change = useEngine((s) => s.configChange);
  const text = saving
    ? 'Saving…'
    : change
      ? change.changed.length === 0
        ? 'Nothing changed.'
        : EFFECT_WORDS[change.effect]
      : '';
  return (
    <p role="status" className="change-feedback">
      {text}
    </p>
  );
}
