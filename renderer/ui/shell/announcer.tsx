// Says the connection's changes to a screen reader on every screen: a polite live region, in
// the app's language, that holds the engine's state in words once it changes (connected,
// reconnecting, error, disconnected…). Empty until the first change: what was already so when
// the app opened is on Home, not news. Mounted once by the shell, outside the screens' panel.
import { useEffect, useRef, useState } from 'react';
import type { EngineState } from '../../../contracts/local-api.js';
import { engineStateWords } from '../../../contracts/words/states.js';
import { useWords } from '../i18n/use-words.js';
import { useEngine } from '../store-context.js';

export function Announcer() {
  const { t } = useWords();
  const state = useEngine((s) => s.status?.status);
  // The state last seen, and whether it changed since the app opened.
  const seen = useRef<EngineState | undefined>(state);
  const [said, setSaid] = useState<EngineState | null>(null);
  useEffect(() => {
    if (state === undefined || state === seen.current) return;
    const before = seen.current;
    seen.current = state;
    // The first status heard is where the app starts, not a change.
    if (before !== undefined) setSaid(state);
  }, [state]);
  return (
    <div role="status" aria-live="polite" aria-atomic="true" className="visually-hidden">
      {said ? engineStateWords(t)[said] : null}
    </div>
  );
}
